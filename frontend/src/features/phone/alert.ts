// A new request's sound and vibration, where the browser allows them: a
// phone browser plays sound only after the person has touched the page
// (the first touch unlocks it), and vibrates only where it supports that.

let ctx: AudioContext | null = null;

/** Unlocks sound on the person's first touch or key. */
export function unlockSound(): void {
  const unlock = (): void => {
    try {
      ctx ??= new AudioContext();
      void ctx.resume();
    } catch {
      ctx = null; // no sound here: the vibration and the page remain
    }
  };
  addEventListener('pointerdown', unlock, { once: true });
  addEventListener('keydown', unlock, { once: true });
}

/** Two short tones and a vibration. */
export function ring(): void {
  navigator.vibrate?.([120, 80, 120]);
  if (!ctx || ctx.state !== 'running') return;
  const t = ctx.currentTime;
  for (const [at, hz] of [
    [0, 880],
    [0.18, 1175],
  ] as const) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = hz;
    gain.gain.setValueAtTime(0.0001, t + at);
    gain.gain.exponentialRampToValueAtTime(0.2, t + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.15);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t + at);
    osc.stop(t + at + 0.16);
  }
}

/** A name for this phone from its browser's words ("Pixel 8", "iPhone"), for the person to correct. */
export function guessName(ua: string): string {
  const android = /Android [\d.]+; ([^;)]+?)(?: Build[^;)]*)?\)/.exec(ua);
  if (android?.[1] && android[1] !== 'K') return android[1].trim().slice(0, 40);
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  if (/Android/.test(ua)) return 'Android phone';
  return 'My phone';
}
