/** Search as you type: a debounce, and answers that arrive after a newer question are dropped. */

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * `ask(value)` waits `delay` ms of quiet, then runs `run(value, ticket)`; `isCurrent(ticket)` is
 * false once a newer question was asked, so a stale answer is dropped by the caller.
 */
export class LatestOnly<T> {
  private generation = 0;
  private pending: unknown;

  constructor(
    private readonly delay: number,
    private readonly run: (value: T, ticket: number) => void,
    private readonly timers: Timers = realTimers,
  ) {}

  ask(value: T, immediately = false): number {
    const ticket = ++this.generation;
    if (this.pending !== undefined) {
      this.timers.clear(this.pending);
      this.pending = undefined;
    }
    if (immediately || this.delay <= 0) {
      this.run(value, ticket);
    } else {
      this.pending = this.timers.set(() => {
        this.pending = undefined;
        this.run(value, ticket);
      }, this.delay);
    }
    return ticket;
  }

  isCurrent(ticket: number): boolean {
    return ticket === this.generation;
  }

  cancel(): void {
    this.generation++;
    if (this.pending !== undefined) {
      this.timers.clear(this.pending);
      this.pending = undefined;
    }
  }
}
