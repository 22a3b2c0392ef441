"""The page loads from the build's precompressed siblings: Chromium gets the WebAssembly and
the Workers' scripts Brotli-encoded (the WebAssembly still compiles, typed
application/wasm) and the page becomes ready and plays a match."""
from __future__ import annotations

TRIVIAL = "def move(view):\n    return (0, False) if view.atom == '-' else 0\n"


def test_the_page_runs_from_brotli_encoded_assets(arena_context, open_arena, site_url):
    responses = []
    arena_context.on("response", lambda response: responses.append(response))
    arena = open_arena(site_url)

    encoded = {r.url.rsplit("/", 1)[-1]: (r.headers.get("content-encoding"),
                                          r.headers.get("content-type"))
               for r in responses if r.status == 200}
    assert encoded["pyodide.asm.wasm"] == ("br", "application/wasm"), encoded
    assert encoded["controller_worker.js"][0] == "br", encoded
    assert encoded["bot_worker.js"][0] == "br", encoded
    assert encoded["app.js"][0] == "br", encoded

    arena.setup(game="atomas", games=1, seed=3, max_moves=50)
    arena.set_bot(1, TRIVIAL)
    arena.set_bot(2, TRIVIAL)
    assert "1 game" in arena.run()
