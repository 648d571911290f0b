// Greedy CTC decoding of the recognition model's output, keeping each character's time steps for its position.

/** One decoded character with the time steps (output columns) where the model emitted it. */
export interface CtcChar {
  text: string;
  prob: number;
  /** first and last time step of the emitting run */
  t0: number;
  t1: number;
}

/** Decoded line: characters and the mean probability of the emitted ones (PaddleOCR's score). */
export interface CtcLine {
  chars: CtcChar[];
  confidence: number;
}

/**
 * Greedy decoding of `[T, C]` probabilities: arg-max per step, repeated indices collapsed, blanks (index 0)
 * dropped; class k ≥ 1 is `dictionary[k - 1]`.
 */
export function ctcGreedyDecode(probs: Float32Array, steps: number, classes: number, dictionary: readonly string[]): CtcLine {
  const chars: CtcChar[] = [];
  let prev = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestP = -Infinity;
    const row = t * classes;
    for (let c = 0; c < classes; c++) {
      const p = probs[row + c]!;
      if (p > bestP) {
        bestP = p;
        best = c;
      }
    }
    if (best !== 0 && best === prev) {
      const last = chars[chars.length - 1]!;
      last.t1 = t;
      last.prob = Math.max(last.prob, bestP);
    } else if (best !== 0) {
      chars.push({ text: dictionary[best - 1] ?? '', prob: bestP, t0: t, t1: t });
    }
    prev = best;
  }
  const confidence = chars.length ? chars.reduce((s, c) => s + c.prob, 0) / chars.length : 0;
  return { chars, confidence };
}

/**
 * Pixel extents of the characters along the line, in units of `stepWidth` per time step: each character spans from
 * halfway after its predecessor's centre to halfway before its successor's; the ends take half the median pitch,
 * clamped to [0, contentWidth].
 */
export function charExtents(chars: readonly CtcChar[], stepWidth: number, contentWidth: number): { x0: number; x1: number }[] {
  const centres = chars.map((c) => ((c.t0 + c.t1 + 1) / 2) * stepWidth);
  const gaps = centres.slice(1).map((c, i) => c - centres[i]!).sort((a, b) => a - b);
  const half = gaps.length ? gaps[Math.floor(gaps.length / 2)]! / 2 : contentWidth / 2;
  return centres.map((c, i) => ({
    x0: i === 0 ? Math.max(0, c - half) : (centres[i - 1]! + c) / 2,
    x1: i === centres.length - 1 ? Math.min(contentWidth, c + half) : (c + centres[i + 1]!) / 2,
  }));
}
