// Layout checks run inside headless Chromium on a copy of report.html (the report itself carries
// no test code): what a reader would see as broken. The problems are written, as JSON, into an element
// `pre#layout-check` that `chromium --dump-dom` prints.
(function () {
  const problems = [];
  const describe = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      let part = e.tagName.toLowerCase();
      if (e.id) part += '#' + e.id;
      const cls = typeof e.className === 'string' ? e.className.trim() : '';
      if (cls) part += '.' + cls.split(/\s+/).join('.');
      parts.unshift(part);
    }
    const text = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
    return parts.slice(-4).join(' > ') + ' "' + text + '"';
  };
  const insideScroller = (el) => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) return true;
    }
    return false;
  };
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth + 1) {
    problems.push('the page scrolls sideways: ' + page.scrollWidth + ' px in a ' + window.innerWidth + ' px window');
  }
  // Content wider than its box spills over its neighbours or is clipped; a scroll container
  // (overflow-x auto or scroll) is how the report shows wide tables on purpose.
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') || el.closest('details:not([open])')) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.display === 'inline' || style.display === 'contents') continue;
    if (['auto', 'scroll'].includes(style.overflowX)) continue;
    if (insideScroller(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
      problems.push('overflows its box by ' + (el.scrollWidth - el.clientWidth) + ' px: ' + describe(el));
    }
  }
  // Numbers, addresses and sizes are read as one word: a line break inside one misleads.
  for (const el of document.querySelectorAll('td.num, .nowrap, .addr')) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (tops.size > 1) problems.push('wraps over ' + tops.size + ' lines: ' + describe(el));
  }
  // Chart text inside its chart, no two texts on top of each other, and no text over a plotted
  // point (a label hiding the data it labels).
  const overlap = (a, b, slack) =>
    a.left < b.right - slack && b.left < a.right - slack && a.top < b.bottom - slack && b.top < a.bottom - slack;
  document.querySelectorAll('svg.chart').forEach((svg, n) => {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')]
      .map((t) => [t, t.getBoundingClientRect()])
      .filter(([, r]) => r.width > 0);
    const name = (t) => 'chart ' + (n + 1) + ' "' + t.textContent.trim().slice(0, 60) + '"';
    for (const [t, r] of texts) {
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        problems.push('clipped by its chart: ' + name(t));
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        if (overlap(texts[i][1], texts[j][1], 0.5)) problems.push('overlap: ' + name(texts[i][0]) + ' and ' + name(texts[j][0]));
      }
    }
    const points = [...svg.querySelectorAll('.series circle')].map((c) => c.getBoundingClientRect());
    for (const [t, r] of texts) {
      if (points.some((p) => overlap(r, p, 0.5))) problems.push('text over a plotted point: ' + name(t));
    }
  });
  const out = document.createElement('pre');
  out.id = 'layout-check';
  out.textContent = JSON.stringify({ height: page.scrollHeight, problems: problems });
  document.body.appendChild(out);
})();
