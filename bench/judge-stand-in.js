/**
 * A local stand-in for the judge's LLM, for the benchmark's judge phases: an OpenAI-compatible
 * POST /v1/chat/completions that answers every request with a valid verdict (the JSON the judge's
 * Ajv schema takes) after `latencyMs`, with usage, as vLLM or OpenAI would. It runs in the bench's
 * own process (pinned to the load core), so it costs toolwatch's core nothing; what toolwatch does
 * around each request (reading the trajectory, redacting, building the prompt, recording the
 * verdict) is what the phases measure. test/fakes/chat-completions.ts is the tests' scripted twin.
 */
import http from 'node:http';

/** @returns {Promise<{ url: string, requests: () => number, close: () => Promise<void> }>} */
export async function startJudgeStandIn({ latencyMs = 50 } = {}) {
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      requests++;
      const n = requests;
      const promptChars = Buffer.concat(chunks).length;
      const verdict = {
        reached_goal: n % 5 !== 0,
        unnecessary_calls: n % 7 === 0 ? 1 : 0,
        dangerous_calls: 0,
        reasoning: 'The agent called the tools the task needed and answered the user.',
      };
      const body = JSON.stringify({
        id: `chatcmpl-bench-${n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'bench-stand-in',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: JSON.stringify(verdict), refusal: null },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: 40, total_tokens: promptChars / 4 + 40 },
      });
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), latencyMs);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
