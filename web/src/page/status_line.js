// The status line: what the page is doing, the last error, and a progress bar.

export function createStatusLine(els) {
  return {
    set(text) { els.statusText.textContent = text; },
    error(text) { els.statusError.textContent = text ? `${text} ` : ""; },
    clearError() { els.statusError.textContent = ""; },
    progress(value, label) {
      if (value === null) els.progress.removeAttribute("value");
      else els.progress.value = Math.max(0, Math.min(1, value));
      if (label) els.progress.setAttribute("aria-label", label);
    },
  };
}
