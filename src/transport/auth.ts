// The endpoint secret (docs/security.md "The endpoint secret"; 2025-11-25 basic/transports, Security
// Warning: servers SHOULD implement proper authentication): a request is served only with it, as
// `Authorization: Bearer <secret>` or, on /mcp, in the path /mcp/<secret>.
import { timingSafeEqual } from 'node:crypto';

export class EndpointSecret {
  private readonly want: Buffer;

  constructor(secret: string) {
    this.want = Buffer.from(secret, 'utf8');
  }

  /** Whether `candidate` is the secret, compared in constant time. */
  matches(candidate: string): boolean {
    const got = Buffer.from(candidate, 'utf8');
    // timingSafeEqual needs equal lengths; a wrong length is compared against the secret itself, so the
    // time taken does not depend on where a guess differs.
    return got.length === this.want.length ? timingSafeEqual(got, this.want) : !timingSafeEqual(this.want, this.want);
  }

  /** Whether an Authorization header value is `Bearer <the secret>`. */
  bearer(authorization: string | undefined): boolean {
    const m = authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return m !== null && this.matches(m[1]!);
  }
}
