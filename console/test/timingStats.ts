/**
 * Statistics for timing tests that must hold on a loaded machine: paired, rank-based, so load
 * that comes and goes and the odd slow outlier move them little.
 */

/** P(a random x is greater than a random y), ties counting half: 0.5 when they do not separate. */
export function auc(xs: number[], ys: number[]): number {
  let wins = 0;
  for (const x of xs) for (const y of ys) wins += x > y ? 1 : x === y ? 0.5 : 0;
  return wins / (xs.length * ys.length);
}

/**
 * The Wilcoxon signed-rank z of paired differences: rank |d| (ties share their mean rank), sum
 * the ranks of the positive differences, and standardise; zeros are dropped. When the
 * differences are symmetric around zero (each pair's order decided by a coin, and no effect)
 * it is a standard normal; positive means the first of each pair tends to be larger.
 */
export function signedRankZ(diffs: number[]): number {
  const nonZero = diffs.filter((d) => d !== 0).sort((a, b) => Math.abs(a) - Math.abs(b));
  const n = nonZero.length;
  let positiveRanks = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && Math.abs(nonZero[j + 1]!) === Math.abs(nonZero[i]!)) j += 1;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (nonZero[k]! > 0) positiveRanks += rank;
    i = j + 1;
  }
  const mean = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  return (positiveRanks - mean) / sd;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
