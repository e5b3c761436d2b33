// The backend's identity, read once at start with retries: the version for
// the sidebar, and the page-ready marker browser and desktop tests wait on.

import { describeError, type ApiClient } from '../../lib/api/client';

export class HealthStore {
  version = $state('');
  ok = $state(false);
  error = $state('');
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly api: ApiClient) {}

  async load(): Promise<void> {
    clearTimeout(this.timer);
    try {
      const h = await this.api.health();
      this.version = h.version;
      this.ok = h.ok;
      this.error = '';
      // The marker tests wait for: the shell is up and has talked to the API.
      document.body.dataset.ready = '1';
    } catch (err) {
      this.error = describeError(err);
      this.timer = setTimeout(() => void this.load(), 2_000);
    }
  }
}
