import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { decodeApprovalEvent, decodeApprovalPage } from '../../lib/api/approvalDecode';
import { applyEvent, toDisplay, WITHDRAWN_NOTE } from './approvalView';
import { addAnswered, answerWords, appendPage, isDeviceEntry, noteWords, whereWords } from './history';

const req = (over: Partial<ApprovalRequest>): ApprovalRequest =>
  ({ id: 'a', kind: 'tool', title: 't', status: 'approved', createdAt: 1, expiresAt: 100, ...over }) as ApprovalRequest;

describe('approval history', () => {
  it('says the answer and where it was given', () => {
    expect([answerWords(req({})), whereWords(req({ resolvedBy: 'popup' }))]).toEqual(['Allowed', 'by you in a popup']);
    expect([answerWords(req({ status: 'denied' })), whereWords(req({ status: 'denied', resolvedBy: 'api' }))]).toEqual(['Denied', 'through the API']);
    expect(answerWords(req({ scope: 'session' }))).toBe('Allowed for the session');
    const oc = req({ status: 'expired', note: WITHDRAWN_NOTE });
    expect([answerWords(oc), whereWords(oc), noteWords(oc)]).toEqual(['Answered in OpenClaw', 'in OpenClaw', '']);
    expect(whereWords(req({ status: 'expired', note: 'nobody answered in time' }))).toBe('nobody answered in time');
  });

  it('keeps the newest answer first, without duplicates', () => {
    let list = addAnswered([], req({ id: 'a', resolvedAt: 10 }));
    list = addAnswered(list, req({ id: 'b', resolvedAt: 20 }));
    list = addAnswered(list, req({ id: 'a', resolvedAt: 10, status: 'approved' }));
    expect(list.map((r) => r.id)).toEqual(['b', 'a']);
    expect(addAnswered(list, req({ id: 'c', status: 'pending' }))).toBe(list);
    expect(appendPage(list, [req({ id: 'a' }), req({ id: 'z' })]).map((r) => r.id)).toEqual(['b', 'a', 'z']);
  });

  // Issue 30: a phone paired or removed is a line of the history, with the
  // phone's name, who did it and from where; never a question.
  describe('a phone paired or removed', () => {
    const paired = req({
      id: 'd1',
      kind: 'device',
      title: 'Paired a phone: Pixel 8',
      resolvedAt: 50,
      resolvedBy: 'phone: Pixel 8',
      note: 'from 192.168.1.20',
    });
    const removed = req({ id: 'd2', kind: 'device', title: 'Removed a phone: Pixel 8', resolvedAt: 60, resolvedBy: 'page' });

    it('reads as a thing done: its heading, who did it and from where, no answer, no note', () => {
      expect(isDeviceEntry(paired)).toBe(true);
      expect(isDeviceEntry(req({}))).toBe(false);
      expect([answerWords(paired), whereWords(paired), noteWords(paired)]).toEqual(['Phone', 'by phone: Pixel 8, from 192.168.1.20', '']);
      expect([answerWords(removed), whereWords(removed), noteWords(removed)]).toEqual(['Phone', 'by you', '']);
      expect(whereWords({ ...removed, resolvedBy: 'api' })).toBe('through the API');
      // An approval answered on the page still says where.
      expect(whereWords(req({ resolvedBy: 'page' }))).toBe('by you on the Approvals page');
      expect(noteWords(req({ note: 'from 1.2.3.4' }))).toBe('from 1.2.3.4');
      const d = toDisplay(paired);
      expect([d.heading, d.kindLabel, d.program, d.args, d.agentId]).toEqual(['Paired a phone: Pixel 8', 'Phone', '', '', '']);
      expect(toDisplay({ ...removed, title: '', tool: 'x', command: 'y' })).toMatchObject({ heading: 'A phone paired or removed', program: '' });
    });

    it('is decoded from the history and the live events, and joins the history, never the pending list', () => {
      const wire = { kind: 'device', title: 'Paired a phone: Pixel 8', status: 'approved', createdAt: 50, expiresAt: 50, resolvedAt: 50 };
      const page = decodeApprovalPage({ approvals: [{ id: 'd1', ...wire }], nextCursor: null });
      expect(page.approvals.map((r) => r.kind)).toEqual(['device']);
      const ev = decodeApprovalEvent({ kind: 'resolved', approval: { id: 'd3', ...wire } });
      expect(applyEvent([], ev)).toEqual([]);
      expect(addAnswered([removed, paired], ev.approval).map((r) => r.id)).toEqual(['d2', 'd3', 'd1']);
    });
  });
});
