/* mono.h - the one monotonic clock: timings in traces and benches, the
 * external embedder's deadline, progress lines and the browser's debounce. */
#ifndef MS_MONO_H
#define MS_MONO_H

/* Milliseconds on CLOCK_MONOTONIC since an arbitrary start: only
 * differences mean anything. */
double mono_ms(void);

/* Sleep ms milliseconds; nothing when ms <= 0 (test delays, the wait
 * before a snapshot file can be sealed). */
void mono_sleep_ms(long long ms);

#endif
