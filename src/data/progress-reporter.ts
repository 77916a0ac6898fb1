/**
 * Progress of long loads on stderr: a bar (cli-progress) when stderr is a terminal, otherwise plain
 * lines at most every few seconds and when a step finishes, so logs of CI jobs stay readable.
 */
import cliProgress from 'cli-progress';

export interface ProgressReporter {
  /** `value` of `total` done in step `step`; `detail` is shown beside the numbers. */
  update(step: string, value: number, total: number, detail?: string): void;
  /** Marks the step finished. */
  finish(step: string, detail?: string): void;
  stop(): void;
}

const PLAIN_INTERVAL_MS = 3000;

export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  return stream.isTTY ? barReporter(stream) : plainReporter(stream);
}

function barReporter(stream: NodeJS.WriteStream): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    { stream, format: '{step} [{bar}] {percentage}% | {detail}', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let current: string | undefined;
  return {
    update(step, value, total, detail = '') {
      if (current !== step) {
        if (current) bar.stop();
        bar.start(Math.max(total, 1), 0, { step: step.padEnd(24), detail });
        current = step;
      }
      bar.setTotal(Math.max(total, 1));
      bar.update(value, { detail });
    },
    finish(step, detail = '') {
      if (current !== step) return;
      bar.update(bar.getTotal(), { detail });
      bar.stop();
      current = undefined;
    },
    stop() {
      if (current) bar.stop();
      current = undefined;
    },
  };
}

function plainReporter(stream: NodeJS.WriteStream): ProgressReporter {
  let last = 0;
  return {
    update(step, value, total, detail = '') {
      const now = Date.now();
      if (now - last < PLAIN_INTERVAL_MS) return;
      last = now;
      const percent = total > 0 ? Math.floor((value / total) * 100) : 0;
      stream.write(`${step}: ${percent}% ${detail}\n`);
    },
    finish(step, detail = '') {
      stream.write(`${step}: done ${detail}\n`);
    },
    stop() {},
  };
}
