/** A minimal observable value: the app state lives in one, and components re-render on change. */
export class Store<T> {
  private readonly listeners = new Set<() => void>();

  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  update(change: (value: T) => T): void {
    const next = change(this.value);
    if (next === this.value) return;
    this.value = next;
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
