import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { WITHDRAWN_NOTE } from './approvalView';
import { addAnswered, answerWords, appendPage, noteWords, whereWords } from './history';

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
});
