"""The games' rules: pure state machines, one module per game (nothing about bots or I/O)."""
