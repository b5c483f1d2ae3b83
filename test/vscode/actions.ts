// What the suite inside the editor (test/vscode/, its index suite.ts) asks the page driver outside it
// (test/vscode.test.ts) to do, as `mcpx-drive:` lines: one definition both sides compile against.

/** An operation inside a webview's document. */
export type FrameOp =
  | { fill: [string, string] }
  | { click: string }
  | { text: [string, string] }
  | { focused: string }
  | { press: string }
  | { type: string };
export type Action =
  | { fill: string }
  /** Typed into the QuickPick's box, not accepted (a QuickPick that searches as the person types). */
  | { search: string }
  | { pick: string }
  | { key: string }
  | { shot: string; when?: 'quick' | 'webview' | 'dialog' }
  | { webview: FrameOp[] }
  /** Inside an MCP App: the frame the app's page (webview/app.js) holds, within the webview. */
  | { app: FrameOp[] }
  | { dialog: string }
  | { gone: 'quick' }
  | { title: string }
  | { back: true }
  | { link: string }
  | { row: string[] }
  /** `stays`: the row is still there after the action (Show App), so nothing waits for it to go. */
  | { rowAction: [string[], string]; stays?: true }
  | { toast: string; has?: string; shot?: string }
  | { browser: string; shot?: string }
  | { see: [string, string]; shot?: string }
  | { button: [string, string] }
  /** Not an action: the driver says it has done what came before (a file of this name in its acks folder). */
  | { ack: string };
