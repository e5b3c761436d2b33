// One install of one runtime, owned by the runtimes store rather than the
// card so it survives leaving the page: the request must stay open, since
// closing it stops the installer.

import { ApiError, isAbort, type ApiClient } from '../../lib/api/client';
import { InstallLog, type InstallView } from './installLog';

const nextFrame: (fn: () => void) => void =
  typeof requestAnimationFrame === 'function' ? (fn) => requestAnimationFrame(fn) : (fn) => setTimeout(fn, 16);

export class InstallSession {
  /** What the card shows; republished at most once a frame while output streams. */
  view = $state.raw<InstallView>(new InstallLog().view());

  private readonly log = new InstallLog();
  private readonly ctl = new AbortController();
  private pending = false;

  constructor(readonly runtimeId: string) {}

  get running(): boolean {
    return this.view.status === 'running';
  }

  /** Runs the install to its end; never rejects (failures become the view's errors). */
  async run(api: ApiClient): Promise<void> {
    try {
      await api.install(
        this.runtimeId,
        (ev) => {
          this.log.push(ev);
          this.schedule();
        },
        this.ctl.signal,
      );
      this.log.end({ kind: 'eof' });
    } catch (err) {
      if (isAbort(err) || this.ctl.signal.aborted) {
        this.log.end({ kind: 'stopped' });
      } else if (err instanceof ApiError && err.status === 0) {
        this.log.end({
          kind: 'error',
          code: 'DISCONNECTED',
          message: 'Lost the connection to Clawboo during the install, so it may have stopped. Check the card, then try again.',
        });
      } else if (err instanceof ApiError) {
        this.log.end({ kind: 'error', code: `HTTP_${err.status}`, message: err.message });
      } else {
        this.log.end({ kind: 'error', code: 'ERROR', message: err instanceof Error ? err.message : String(err) });
      }
    }
    this.view = this.log.view();
  }

  /** Closes the request; the backend stops the installer. */
  stop(): void {
    this.ctl.abort();
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    nextFrame(() => {
      this.pending = false;
      this.view = this.log.view();
    });
  }
}
