// A task's line comments as its diff view shows them: read with the diff,
// added and removed by the reviewer, and sent back to the agent in one go.
// Every change goes through the one API client (api.lineComments).

import { describeError, type ApiClient } from '../../lib/api/client';
import type { LineComment, NewLineComment } from '../../lib/api/lineCommentClient';

export class LineCommentsStore {
  comments = $state.raw<LineComment[]>([]);
  /** Why the comments cannot be read, in words; "" when fine. */
  error = $state('');
  readonly unsent = $derived(this.comments.filter((c) => !c.sentRunId).length);

  constructor(
    readonly taskId: string,
    private readonly api: ApiClient,
  ) {}

  async load(signal?: AbortSignal): Promise<void> {
    try {
      const cs = await this.api.lineComments.list(this.taskId, signal);
      if (signal?.aborted) return;
      this.comments = cs;
      this.error = '';
    } catch (err) {
      if (signal?.aborted) return;
      this.error = describeError(err);
    }
  }

  /** Adds a comment; rejects with the backend's ApiError (path_not_in_diff, invalid). */
  async add(c: NewLineComment): Promise<LineComment> {
    const added = await this.api.lineComments.add(this.taskId, c);
    if (!this.comments.some((x) => x.id === added.id)) this.comments = [...this.comments, added];
    return added;
  }

  async remove(id: string): Promise<void> {
    await this.api.lineComments.remove(this.taskId, id);
    this.comments = this.comments.filter((c) => c.id !== id);
  }

  /** Sends the general request (message) and the unsent comments back to the agent; answers the new run's id, then re-reads them (now sent). */
  async sendBack(message = ''): Promise<string> {
    const { runId } = await this.api.lineComments.sendBack(this.taskId, message);
    await this.load();
    return runId;
  }
}
