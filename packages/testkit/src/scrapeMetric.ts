/**
 * Scrapes `${opsUrl}/metrics` and sums the samples whose lines match `pattern` (0 when
 * none): one series (`^name\{label="x"\} `), or several at once (every partition's lag).
 */
export async function scrapeMetric(opsUrl: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => !line.startsWith('#') && pattern.test(line))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}
