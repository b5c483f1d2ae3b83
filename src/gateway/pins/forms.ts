// The forms pins compare that are not a list item's fields (docs/gateway.md "Pins"): an app's read by its
// content's digests, and a tool whose pin has no app.
import { createHash } from 'node:crypto';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';

/** A tool without an app: its `_meta.ui.resourceUri` (and the older `_meta["ui/resourceUri"]`) gone. */
export function withoutApp(tool: JsonObject): JsonObject {
  if (!isObject(tool._meta)) return tool;
  const { 'ui/resourceUri': _flat, ...meta } = tool._meta;
  void _flat;
  if (isObject(meta.ui)) {
    const { resourceUri: _uri, ...ui } = meta.ui;
    void _uri;
    meta.ui = ui;
  }
  return { ...tool, _meta: meta };
}

/** What an app's read pins: its URI, each content's type and the SHA-256 of its text or blob, and size. */
export function appForm(uri: string, result: JsonObject): JsonObject {
  const contents = (Array.isArray(result.contents) ? result.contents : []).filter(isObject).map((c) => {
    const body = typeof c.text === 'string' ? c.text : typeof c.blob === 'string' ? c.blob : '';
    return {
      ...(typeof c.mimeType === 'string' ? { mimeType: c.mimeType } : {}),
      sha256: createHash('sha256').update(body).digest('hex'),
      bytes: Buffer.byteLength(body),
      ...(isObject(c._meta) ? { _meta: c._meta } : {}),
    };
  });
  return { uri, contents };
}
