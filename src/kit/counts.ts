// A count per key that holds no entry at zero: how many requests, background calls or questions each
// identity has (docs/security.md "Bounds"). A key that drops to zero leaves the map, so identities that
// come and go leave nothing behind.
export class Counts {
  private readonly n = new Map<string, number>();
  /** The sum over every key. */
  total = 0;

  get(key: string): number {
    return this.n.get(key) ?? 0;
  }

  add(key: string): void {
    this.n.set(key, this.get(key) + 1);
    this.total++;
  }

  remove(key: string): void {
    const had = this.get(key);
    if (had === 0) return;
    if (had > 1) this.n.set(key, had - 1);
    else this.n.delete(key);
    this.total--;
  }

  clear(): void {
    this.n.clear();
    this.total = 0;
  }
}
