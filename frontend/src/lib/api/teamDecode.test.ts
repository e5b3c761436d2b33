import { describe, expect, it } from 'vitest';
import { decodeTeam } from './teamDecode';

describe('team decoding', () => {
  it('reads the critic switch, on unless the server says off', () => {
    expect(decodeTeam({ id: 't', critic: false }).critic).toBe(false);
    expect(decodeTeam({ id: 't', critic: true }).critic).toBe(true);
    // An older server sends none: the backend's default, on.
    expect(decodeTeam({ id: 't' }).critic).toBe(true);
  });
});
