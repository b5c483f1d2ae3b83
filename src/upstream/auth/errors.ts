// What goes wrong signing in to an upstream, as values a caller can tell apart. Both cross the wire as
// -32603 with their message (which names the server and what fixes it, and never a token).
import { CODES, ProtocolError } from '../../protocol/errors';

/** A step of the protocol failed: discovery, registration, the authorization response, a token request. */
export class AuthError extends ProtocolError {
  constructor(message: string) {
    super(CODES.InternalError, message);
    this.name = 'AuthError';
  }
}

/** The upstream needs a sign-in and nobody can give one now (headless, no person): fails at once. */
export class SignInRequired extends ProtocolError {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(CODES.InternalError, message);
    this.name = 'SignInRequired';
  }
}
