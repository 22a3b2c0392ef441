// CodeMirror 6 editor for a bot's Python source.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";

export function createEditor(parent, { doc = "", label = "Code", onChange = null } = {}) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        indentUnit.of("    "), // PEP 8: four spaces
        EditorState.tabSize.of(4),
        python(),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && onChange) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    get value() { return view.state.doc.toString(); },
    set value(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: String(text) } });
    },
    setLabel(l) {
      view.contentDOM.setAttribute("aria-label", l);
    },
    destroy() { view.destroy(); },
  };
}
