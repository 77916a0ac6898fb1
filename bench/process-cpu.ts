/** What the kernel has charged a process so far (/proc/<pid>/stat), for the benches that divide it by requests. */
import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** User and system CPU of a process, and of its children that ended and were waited for, in µs. */
export function cpuOf(pid: number): { user: number; system: number; childrenUser: number; childrenSystem: number; parentPid: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const toMicros = (ticks: string) => (Number(ticks) * 1e6) / CLOCK_TICKS_PER_SECOND;
  return {
    user: toMicros(fields[11]!),
    system: toMicros(fields[12]!),
    childrenUser: toMicros(fields[13]!),
    childrenSystem: toMicros(fields[14]!),
    parentPid: Number(fields[1]),
  };
}
