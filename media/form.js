// The webview form of mcpx: renders a JSON Schema (objects nested, primitives, enums, arrays) as a
// form, and posts typed messages back: {type:'submit', content} | {type:'decline'} | {type:'cancel'}.
// The extension validates; an invalid answer comes back as {type:'invalid', reason}. No network, no
// eval: the page's CSP allows only this script (by nonce) and the stylesheet.
(() => {
  const vscode = acquireVsCodeApi();
  const root = document.getElementById('form');
  const title = document.getElementById('title');
  const problem = document.getElementById('problem');
  let read = () => ({});

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined) e.setAttribute(k, String(v));
    for (const k of kids) e.append(k);
    return e;
  }

  function enumOptions(s) {
    if (Array.isArray(s.enum))
      return s.enum.map((v, i) => ({ value: String(v), label: (s.enumNames && s.enumNames[i]) || String(v) }));
    const alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.every((a) => a && 'const' in a))
      return alts.map((a) => ({ value: String(a.const), label: a.title || String(a.const) }));
    return undefined;
  }

  // Builds the input for schema `s` at `path`; returns a function that reads its value.
  function field(s, path, label, required, parent) {
    const id = path.join('.') || 'value';
    const wrap = el('div', { class: 'field' });
    parent.append(wrap);
    const caption = el('label', { for: id }, label + (required ? ' *' : ''));
    if (s.type === 'object' && s.properties) {
      const fs = el('fieldset', { 'data-path': id }, el('legend', {}, label));
      wrap.append(fs);
      if (s.description) fs.append(el('p', { class: 'hint' }, s.description));
      const req = new Set(s.required || []);
      const readers = Object.entries(s.properties).map(([k, sub]) => [
        k,
        field(sub, [...path, k], sub.title || k, req.has(k), fs),
      ]);
      return () => {
        const out = {};
        for (const [k, r] of readers) {
          const v = r();
          if (v !== undefined) out[k] = v;
        }
        return out;
      };
    }
    wrap.append(caption);
    if (s.description) wrap.append(el('p', { class: 'hint' }, s.description));
    const options = enumOptions(s);
    if (options) {
      const sel = el('select', { id, name: id });
      if (!required) sel.append(el('option', { value: '' }, '(not set)'));
      for (const o of options) sel.append(el('option', { value: o.value }, o.label));
      if (s.default !== undefined) sel.value = String(s.default);
      wrap.append(sel);
      return () => (sel.value === '' ? undefined : sel.value);
    }
    if (s.type === 'boolean') {
      const box = el('input', { id, name: id, type: 'checkbox' });
      box.checked = s.default === true;
      wrap.append(box);
      return () => box.checked;
    }
    if (s.type === 'array') {
      // One item per line (strings, numbers); anything else as JSON.
      const prim = s.items && ['string', 'number', 'integer'].includes(s.items.type);
      const area = el('textarea', { id, name: id, rows: 3, placeholder: prim ? 'one per line' : 'JSON array' });
      if (Array.isArray(s.default)) area.value = prim ? s.default.join('\n') : JSON.stringify(s.default);
      wrap.append(area);
      return () => {
        if (area.value.trim() === '') return undefined;
        if (!prim) return JSON.parse(area.value);
        const lines = area.value
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        return s.items.type === 'string' ? lines : lines.map(Number);
      };
    }
    const numeric = s.type === 'number' || s.type === 'integer';
    const input = el('input', {
      id,
      name: id,
      type: numeric ? 'number' : 'text',
      step: s.type === 'integer' ? '1' : undefined,
    });
    if (s.default !== undefined) input.value = String(s.default);
    wrap.append(input);
    return () => (input.value === '' ? undefined : numeric ? Number(input.value) : input.value);
  }

  window.addEventListener('message', (ev) => {
    const m = ev.data;
    if (m.type === 'init') {
      title.textContent = m.title;
      root.replaceChildren();
      read = field(m.schema, [], 'Values', true, root);
    } else if (m.type === 'invalid') {
      problem.textContent = m.reason;
    }
  });
  document.getElementById('accept').addEventListener('click', () => {
    try {
      vscode.postMessage({ type: 'submit', content: read() });
    } catch (e) {
      problem.textContent = String(e.message || e);
    }
  });
  document.getElementById('decline').addEventListener('click', () => vscode.postMessage({ type: 'decline' }));
  document.getElementById('cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  vscode.postMessage({ type: 'ready' });
})();
