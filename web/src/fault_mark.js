// The faulting line of a bot, marked in its editor (issue 18): a run's fault names its game,
// turn and line in the console; here the line itself is highlighted, with a note after it
// that screen readers read ("fault here: game 2, turn 14"). The marks go on the next edit
// of the code or the next run, so a mark never points at a line that has changed since.

import { Decoration, EditorView, WidgetType } from "@codemirror/view";
import { StateEffect, StateField } from "@codemirror/state";

export const MAX_MARKS = 20; // distinct lines marked at once: a bot faulting everywhere marks a few

const addMark = StateEffect.define(); // { line, note }
const clearMarks = StateEffect.define();

class NoteWidget extends WidgetType {
  constructor(note) { super(); this.note = note; }
  eq(other) { return other.note === this.note; }
  toDOM() {
    const span = document.createElement("span");
    span.className = "cm-fault-note";
    span.setAttribute("role", "note");
    span.textContent = ` ⚠ fault here: ${this.note}`;
    return span;
  }
  ignoreEvent() { return true; }
}

const lineMark = Decoration.line({ class: "cm-fault-line", attributes: { "data-fault": "true" } });

// The marked lines: {line: note}, in a field so that every edit can clear them.
const marks = StateField.define({
  create: () => new Map(),
  update(value, tr) {
    if (tr.docChanged) return new Map();
    let next = value;
    for (const e of tr.effects) {
      if (e.is(clearMarks)) next = new Map();
      else if (e.is(addMark) && (next.has(e.value.line) || next.size < MAX_MARKS)) {
        next = new Map(next);
        if (!next.has(e.value.line)) next.set(e.value.line, e.value.note);
      }
    }
    return next;
  },
  provide: (field) => EditorView.decorations.compute([field, "doc"], (state) => {
    const ranges = [];
    for (const [n, note] of [...state.field(field)].sort((a, b) => a[0] - b[0])) {
      if (n < 1 || n > state.doc.lines) continue;
      const line = state.doc.line(n);
      ranges.push(lineMark.range(line.from));
      ranges.push(Decoration.widget({ widget: new NoteWidget(note), side: 1 }).range(line.to));
    }
    return Decoration.set(ranges, true);
  }),
});

export const faultMarks = [
  marks,
  EditorView.baseTheme({
    ".cm-fault-line": { backgroundColor: "#fde2e2" },
    ".cm-fault-note": { color: "#9b1c1c", fontStyle: "italic" },
  }),
];

// Marks line `line` (1-based) of the editor `view` with `note`; a line the code does not have is left.
export function markFault(view, line, note) {
  if (!Number.isInteger(line) || line < 1 || line > view.state.doc.lines) return;
  view.dispatch({ effects: addMark.of({ line, note: String(note).slice(0, 200) }) });
}

export function clearFaults(view) {
  if (view.state.field(marks).size) view.dispatch({ effects: clearMarks.of(null) });
}
