"""The built-in example bots: plain bot source files in ``engine/examples/<game>/``, shown in
the page's examples menu and playable as ``builtin:NAME``. They use only the documented bot
API; a game's spec reads them (``GameSpec.examples``, ``GameSpec.example_source``)."""
