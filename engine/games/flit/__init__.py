"""Flit: its rules (``rules``), its wire protocol and ``SPEC`` (``wire``) and its example bots
(``examples/``, source files, not modules); its rule book for bot authors is docs/rules/flit.md."""
