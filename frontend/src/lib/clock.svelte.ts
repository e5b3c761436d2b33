// A coarse shared clock so relative times ("5m ago") refresh without each
// row running its own timer.
class Clock {
  now = $state(Date.now());

  constructor(periodMs: number) {
    setInterval(() => {
      this.now = Date.now();
    }, periodMs);
  }
}

export const clock = new Clock(1_000);
