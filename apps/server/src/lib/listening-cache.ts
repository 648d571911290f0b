/**
 * What the process's caches that the database invalidates have in common (the guard's access answers,
 * modules/auth/access-cache.ts; the answers of cached routes, lib/response-cache.ts): they LISTEN on a channel, count
 * a generation that goes up on every notification and every change of the listener's state (something read before
 * it may predate a commit, and is not kept), and are bypassed and emptied while the listener is not listening.
 */
import type { Database } from '../db/client';

export abstract class ListeningCache {
  protected generation = 0;
  /** goes up on every change of the listener's state only (what was read before may have missed a notification) */
  protected epoch = 0;
  private listening = false;
  private stopListening: (() => Promise<void>) | null = null;

  protected constructor(private readonly channel: string) {}

  async start(database: Database): Promise<void> {
    this.stopListening = await database.listen(this.channel, (p) => this.onNotify(p), (up) => this.setListening(up));
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
    this.setListening(false);
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** a notification's payload (the generation has gone up already): drop what it names */
  protected abstract notified(payload: string): void;
  /** drop everything */
  protected abstract clear(): void;

  private onNotify(payload: string): void {
    this.generation++;
    this.notified(payload);
  }

  private setListening(up: boolean): void {
    this.generation++;
    this.epoch++;
    this.listening = up;
    this.clear();
  }
}
