// A count per key that holds no entry at zero: how many requests, background calls or questions each
// identity has (docs/security.md "Bounds"). A key that drops to zero leaves the map, so identities that
// come and go leave nothing behind.
export class Counts {
  private readonly n = new Map<string, number>();

  get(key: string): number {
    return this.n.get(key) ?? 0;
  }

  add(key: string): void {
    this.n.set(key, this.get(key) + 1);
  }

  remove(key: string): void {
    const left = this.get(key) - 1;
    if (left > 0) this.n.set(key, left);
    else this.n.delete(key);
  }

  clear(): void {
    this.n.clear();
  }
}
