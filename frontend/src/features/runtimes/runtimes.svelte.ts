// The runtimes this process can run and the catalog of ones to add, loaded
// once at start and on demand (the Runtimes page's Refresh). The run form
// reads the runnable list from here too.

import { describeError, type ApiClient } from '../../lib/api/client';
import type { RuntimeDescriptor, RuntimeEntry } from '../../lib/api/types';
import { catalogToAdd } from './catalog';

export class RuntimesStore {
  runnable = $state.raw<RuntimeEntry[]>([]);
  available = $state.raw<RuntimeDescriptor[]>([]);
  loaded = $state(false);
  loading = $state(false);
  error = $state('');

  constructor(private readonly api: ApiClient) {}

  async load(): Promise<void> {
    this.loading = true;
    try {
      const res = await this.api.runtimes();
      this.runnable = res.runtimes;
      this.available = catalogToAdd(res.runtimes, res.available);
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
    } finally {
      this.loading = false;
    }
  }
}
