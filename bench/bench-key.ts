/** The global key the benchmark's app server is started with. */
export const BENCH_KEY = 'bench-global-key-0123456789';
