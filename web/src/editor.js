// CodeMirror 6 editor for a bot's Python source.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { clearFaults, faultMarks, markFault } from "./fault_mark.js";
import { defaultHighlightStyle, HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";

// CodeMirror's default colours, except the ones too light on white for WCAG AA (4.5:1):
// escapes and regular expressions (#e40) and special names (#f50) get a darker orange.
const TOO_LIGHT = new Set(["#e40", "#f50"]);
const readableColours = HighlightStyle.define(defaultHighlightStyle.specs.map(
  (spec) => (TOO_LIGHT.has(spec.color) ? { ...spec, color: "#a63200" } : spec)));

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
        syntaxHighlighting(readableColours), // replaces basicSetup's fallback style
        faultMarks,
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
    markFault(line, note) { markFault(view, line, note); },
    clearFaults() { clearFaults(view); },
    setLabel(l) {
      view.contentDOM.setAttribute("aria-label", l);
    },
    destroy() { view.destroy(); },
  };
}
