// A DOM element in one call: el("p", {id: "x", text: "hi"}, [child]). `text` sets the text
// content; false or null leave an attribute out, true sets it empty.
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (v !== false && v !== null) node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}
