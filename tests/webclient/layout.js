// The faults of a page's layout, measured from the boxes Chromium gives its text:
// each line of each text node and each control. Read by tests/webclient/test_layout.py,
// which evaluates this function in the page; it returns the faults as sentences.
// - a number of two digits or more broken over two lines;
// - a word broken inside (breaks are allowed at spaces, hyphens and soft hyphens);
// - a text stacked almost one character per line (a header squeezed to one column);
// - two boxes of unrelated elements lying on each other, as far as their scrolling
//   or clipping ancestors let them show.
() => {
  const faults = [];
  const visible = (el) => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.display === "none" || s.visibility === "hidden" || Number(s.opacity) === 0) return false;
    }
    return true;
  };
  // The part of a box that its scrolling or clipping ancestors let show.
  const clip = (el, box) => {
    let { left, top, right, bottom } = box;
    for (let n = el; n && n !== document.documentElement; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") {
        const c = n.getBoundingClientRect();
        left = Math.max(left, c.left); right = Math.min(right, c.right);
        top = Math.max(top, c.top); bottom = Math.min(bottom, c.bottom);
      }
    }
    return right - left > 1 && bottom - top > 1 ? { left, top, right, bottom } : null;
  };
  const name = (el) => {
    const id = el.dataset?.testid ? `[${el.dataset.testid}]` : "";
    const cls = el.classList?.length ? "." + [...el.classList].join(".") : "";
    return `${el.tagName.toLowerCase()}${cls}${id}`;
  };
  const lines = (range) => {
    const tops = [];
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      if (!tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
    }
    return tops.length;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const boxes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.data;
    if (!text.trim() || !el || el.closest("svg, script, style, noscript, option") || !visible(el)) continue;
    const range = document.createRange();
    // A number of two digits or more keeps to one line.
    for (const m of text.matchAll(/\d+(?:[.,:/]\d+)*/g)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      if (lines(range) > 1) faults.push(`number ${m[0]} broken over lines in ${name(el)}: "${text.trim()}"`);
    }
    // A word (split only where the text allows: spaces, hyphens and soft hyphens) keeps
    // to one line.
    for (const m of text.matchAll(/[^\s\u00ad\u200b/\-\u2010-\u2014\u05be]+/g)) {
      // (Longer than any word of the six languages: people's own text, a name typed as
      // one long word, which must break to fit its card.)
      if ([...m[0]].length < 2 || [...m[0]].length > 40 || /[\u3000-\u9fff\uff00-\uffef]/.test(m[0])) continue;
      // After a soft hyphen the range's first box is the hyphen drawn at the line's end.
      const start = text[m.index - 1] === "\u00ad" ? m.index + 1 : m.index;
      range.setStart(node, start); range.setEnd(node, m.index + m[0].length);
      if (lines(range) > 1) faults.push(`word "${m[0]}" broken inside in ${name(el)}`);
    }
    range.setStart(node, 0); range.setEnd(node, text.length);
    const count = [...text.trim()].length;
    const n = lines(range);
    if (n > 1 && count / n < 2.5) faults.push(`text stacked ${n} lines for ${count} characters in ${name(el)}: "${text.trim()}"`);
    for (const r of range.getClientRects()) {
      const shown = clip(el, r);
      if (shown) boxes.push({ el, box: shown });
    }
  }
  for (const el of document.querySelectorAll("input:not([type=hidden]), select, button, textarea")) {
    if (!visible(el) || el.closest("svg")) continue;
    const shown = clip(el, el.getBoundingClientRect());
    if (shown) boxes.push({ el, box: shown });
  }
  // No two boxes of unrelated elements overlap (by more than a pixel each way).
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (w > 1.5 && h > 1.5) {
        faults.push(`${name(a.el)} "${a.el.textContent.trim().slice(0, 30)}" lies over ${name(b.el)} "${b.el.textContent.trim().slice(0, 30)}"`);
      }
    }
  }
  return [...new Set(faults)];
}
