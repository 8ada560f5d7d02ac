/**
 * `eval run --replay FILE` / `eval score --replay FILE`: production failures exported for review
 * (`review: true`, no expectation) run reference-free against the candidates — "would the new
 * model make the same mistakes on last week's failures?". Each becomes a judge case (decision
 * scope) with a fixed rubric: every call goes through the production checker (a structural
 * failure fails it), then the suite's judge where one is configured; without a judge the checker
 * alone decides. Cases of the file that do carry an expectation are scored as usual. They run as
 * their own variant, `replay`: reported apart (`label [replay]`), with pass^k over the repeats,
 * never gated.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCases } from './cases.js';
import { SuiteError } from './suite.js';
export const REPLAY_RUBRIC = 'This request comes from production, where the agent answered it badly. There is no reference answer: ' +
    "judge whether this answer is right for the user's request with the tools offered (the right tool, or rightly " +
    'none; argument values the user gave, nothing invented).';
export function replayJudge(v) {
    const rest = { ...v };
    delete rest.expected;
    return {
        ok: true,
        value: {
            expected: { kind: 'judge', scope: 'decision' },
            judge: { rubric: REPLAY_RUBRIC, scope: 'decision', replay: true },
            rest,
        },
    };
}
/** The suite with the replay file's cases instead of its own (same tools, system prompt, settings, judge). */
export function replaySuite(suite, file) {
    let text;
    try {
        text = readFileSync(file, 'utf8');
    }
    catch (err) {
        throw new SuiteError([`${file}: ${err.message}`]);
    }
    const parsed = parseCases(text, path.resolve(file), {
        tools: suite.tools,
        defaultMaxTurns: suite.settings.maxTurns,
        schemas: suite.schemas,
        replay: true,
    });
    const problems = [...parsed.problems];
    if (suite.tools.length === 0) {
        const bare = parsed.cases.find((c) => !c.tools);
        if (bare)
            problems.push(`${file}: case ${JSON.stringify(bare.id)} brings no tools and the suite has no tools.json`);
    }
    if (!problems.length && parsed.cases.length === 0)
        problems.push(`${file}: no cases to replay`);
    if (problems.length)
        throw new SuiteError(problems);
    return {
        ...suite,
        cases: parsed.cases,
        skipped: [],
        compatibilityTools: undefined,
        settings: { ...suite.settings, toolChoices: [] },
    };
}
//# sourceMappingURL=replay.js.map