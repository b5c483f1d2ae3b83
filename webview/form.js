// The webview form of mcpx: renders a JSON Schema (objects nested, primitives, enums, arrays) as a form
// of VS Code's own look — @vscode-elements/elements web components, themed by the webview's --vscode-*
// variables in light, dark and high-contrast themes — and posts typed messages back:
// {type:'submit', content} | {type:'decline'} | {type:'cancel'}. The extension validates; an invalid
// answer comes back as {type:'invalid', reason, fields: [{path, message}]}, each message shown beside its
// field. Keyboard only: the first field is focused, Tab walks the fields and buttons, Enter in a text
// field or Ctrl/Cmd+Enter anywhere accepts. Bundled by esbuild.mjs into dist/webview/form.js; no
// network, no eval: the page's CSP allows only this script (by nonce) and its stylesheet.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-form-group/index.js';
import '@vscode-elements/elements/dist/vscode-form-helper/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';

const vscode = acquireVsCodeApi();
const root = document.getElementById('form');
const title = document.getElementById('title');
const problem = document.getElementById('problem');
let read = () => ({});
/** The field elements and their helpers by dotted path, for the messages beside them. */
const fields = new Map();

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== false) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k);
  return e;
}

function enumOptions(s) {
  if (Array.isArray(s.enum)) return s.enum.map((v, i) => ({ value: String(v), label: s.enumNames?.[i] || String(v) }));
  const alts = s.oneOf || s.anyOf;
  if (Array.isArray(alts) && alts.every((a) => a && 'const' in a))
    return alts.map((a) => ({ value: String(a.const), label: a.title || String(a.const) }));
  return undefined;
}

/** Shows `message` beside the field at `path` (or clears it). */
function mark(path, message) {
  const f = fields.get(path);
  if (!f) return false;
  f.input.invalid = Boolean(message);
  f.helper.textContent = message || f.hint;
  f.helper.classList.toggle('error', Boolean(message));
  return true;
}

// Builds the input for schema `s` at `path`; returns a function that reads its value.
function field(s, path, label, required, parent) {
  const id = path.join('.') || 'value';
  if (s.type === 'object' && s.properties) {
    const fs = el('fieldset', { 'data-path': id }, el('legend', {}, label));
    parent.append(fs);
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
  const group = el('vscode-form-group', { variant: 'vertical' });
  parent.append(group);
  group.append(el('vscode-label', { for: id, required }, label));
  const hint = s.description || '';
  const helper = el('vscode-form-helper', { id: `${id}-helper`, 'aria-live': 'polite' }, hint);
  const options = enumOptions(s);
  let input;
  let reader;
  if (options) {
    input = el('vscode-single-select', { id, name: id });
    if (!required) input.append(el('vscode-option', { value: '' }, '(not set)'));
    for (const o of options)
      input.append(el('vscode-option', { value: o.value, selected: String(s.default) === o.value }, o.label));
    reader = () => (input.value === '' ? undefined : input.value);
  } else if (s.type === 'boolean') {
    input = el('vscode-checkbox', { id, name: id, label, checked: s.default === true });
    reader = () => input.checked;
  } else if (s.type === 'array') {
    // One item per line (strings, numbers); anything else as JSON.
    const prim = s.items && ['string', 'number', 'integer'].includes(s.items.type);
    input = el('vscode-textarea', { id, name: id, rows: 3, placeholder: prim ? 'one per line' : 'JSON array' });
    if (Array.isArray(s.default)) input.value = prim ? s.default.join('\n') : JSON.stringify(s.default);
    reader = () => {
      if (input.value.trim() === '') return undefined;
      if (!prim) {
        try {
          return JSON.parse(input.value);
        } catch {
          throw Object.assign(new Error('not a JSON array'), { path: id });
        }
      }
      const lines = input.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return s.items.type === 'string' ? lines : lines.map(Number);
    };
  } else {
    const numeric = s.type === 'number' || s.type === 'integer';
    input = el('vscode-textfield', {
      id,
      name: id,
      type: numeric ? 'number' : 'text',
      step: s.type === 'integer' ? '1' : undefined,
    });
    if (s.default !== undefined) input.value = String(s.default);
    reader = () => (input.value === '' ? undefined : numeric ? Number(input.value) : input.value);
  }
  input.setAttribute('aria-describedby', `${id}-helper`);
  group.append(input, helper);
  fields.set(id, { input, helper, hint });
  // A message beside a field goes once the person changes it.
  input.addEventListener('input', () => mark(id, ''));
  input.addEventListener('change', () => mark(id, ''));
  return reader;
}

function accept() {
  for (const id of fields.keys()) mark(id, '');
  problem.textContent = '';
  try {
    vscode.postMessage({ type: 'submit', content: read() });
  } catch (e) {
    if (!(e.path && mark(e.path, e.message))) problem.textContent = String(e.message || e);
  }
}

window.addEventListener('message', (ev) => {
  const m = ev.data;
  if (m.type === 'init') {
    title.textContent = m.title;
    root.replaceChildren();
    fields.clear();
    read = field(m.schema, [], 'Values', true, root);
    // Keyboard first: the first field has the focus.
    const first = fields.values().next().value;
    if (first) setTimeout(() => first.input.focus(), 0);
  } else if (m.type === 'invalid') {
    problem.textContent = m.reason;
    let focused = false;
    for (const f of m.fields || []) {
      if (mark(f.path, f.message) && !focused) {
        fields.get(f.path).input.focus();
        focused = true;
      }
    }
  }
});
document.getElementById('accept').addEventListener('click', accept);
document.getElementById('decline').addEventListener('click', () => vscode.postMessage({ type: 'decline' }));
document.getElementById('cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
// Enter in a text field submits the form (the components ask their form to): that is Accept, never a
// navigation. Ctrl/Cmd+Enter accepts from any field, the textarea too; taken in the capture phase so the
// field does not also submit.
root.addEventListener('submit', (e) => {
  e.preventDefault();
  accept();
});
document.addEventListener(
  'keydown',
  (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopPropagation();
      accept();
    }
  },
  true,
);
vscode.postMessage({ type: 'ready' });
