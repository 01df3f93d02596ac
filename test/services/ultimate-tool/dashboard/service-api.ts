// A tiny /v13 client for the dashboard tests and benchmark: JSON in, JSON out, POSTs typed as JSON
// (the service refuses anything else), and waiting for a job by polling its route.
export interface ApiAnswer {
  status: number;
  body: any;
}

export function serviceApi(url: string) {
  const call = async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  const get = (path: string) => call('GET', path);
  const post = (path: string, body: unknown) => call('POST', path, body);
  return {
    get,
    post,
    /** Polls GET /v13/jobs/{id} until the job left queued/running (the contract's way to wait). */
    async finishedJob(jobId: string, timeoutMs = 120_000): Promise<ApiAnswer['body']> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await get(`/v13/jobs/${jobId}`);
        if (body.job.state !== 'queued' && body.job.state !== 'running') return body.job;
        if (Date.now() > end) throw new Error(`job ${jobId} still ${body.job.state} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async probe(): Promise<string> {
      const r = await post('/v13/probes', {});
      if (r.status !== 201) throw new Error(`probe: ${JSON.stringify(r.body)}`);
      return r.body.probe.probe_id as string;
    },
  };
}
export type ServiceApi = ReturnType<typeof serviceApi>;
