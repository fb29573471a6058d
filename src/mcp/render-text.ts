import { echoValue, type ValidationIssue } from '../errors/validation.js';
import type { PressureReport } from '../pressure/types.js';
import type { CompactAnswer } from '../session/session-monitor.js';
import type { SessionSummary, TimelineMarker, UsageAnswer, Verdict } from '../session/session-schemas.js';
import type { ArchiveRecord } from '../store/archive.js';

/**
 * The text half of each tool result: what an agent (or a person reading its transcript) needs, in a few lines.
 * The structured content carries every figure; clients that show only text still get the decision and its reasons.
 */

function formatNumber(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Dollars to the millionth (a cheap call costs fractions of a cent; binary floats show 0.62776999…). */
function formatUsd(value: number): string {
  return `$${Number(value.toFixed(6))}`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The seed 000 report in four lines. */
export function renderPressure(report: PressureReport): string {
  const p = report.pressure;
  const budget =
    p.estimatedTokensRemaining === null
      ? 'no token budget'
      : `${formatNumber(p.estimatedTokensRemaining)} tokens left${
          p.estimatedMinutesRemaining === null
            ? ' (not depleting)'
            : `, ${p.estimatedMinutesRemaining} min at this burn`
        }`;
  return [
    `${p.level} pressure, viability ${p.sessionViability}/100: ${p.suggestedAction} (priority ${p.recommendations.priority})`,
    `thresholds exceeded: ${p.thresholdsExceeded.length ? p.thresholdsExceeded.join(', ') : 'none'}`,
    `memory ${p.memoryPressure}%, burn ${p.tokenBurnRate} (${p.burnRateAcceleration}× the ${report.metadata.systemMode} baseline), drift ${p.contextDrift}%; ${budget}`,
    `recommendations: compress ${p.recommendations.shouldCompress}, optimize ${p.recommendations.shouldOptimize}, terminate ${p.recommendations.shouldTerminate} (${report.metadata.agentProfile} profile)`,
  ].join('\n');
}

/** The verdict and every model's reason, one per line. */
export function renderVerdict(verdict: Verdict | null): string {
  if (!verdict) return 'verdict: none yet (no usage reported)';
  const extras = [
    verdict.newRoundDue ? 'a new round is due' : '',
    verdict.waitSeconds === null ? '' : `the next request fits the quota in ${verdict.waitSeconds} s`,
    verdict.thinking === null ? '' : `merge into the next request: ${JSON.stringify(verdict.thinking)}`,
  ].filter(Boolean);
  return [
    `verdict: ${verdict.action} (priority ${verdict.priority})${extras.length ? `; ${extras.join('; ')}` : ''}`,
    ...verdict.reasons.map((reason) => `  ${reason.model}: ${reason.action} — ${reason.reason}`),
  ].join('\n');
}

function renderHealth(health: SessionSummary['health']): string[] {
  const prompt =
    health.promptTokens === null ? 'no usage figure' : `${formatNumber(health.promptTokens)} prompt tokens`;
  const lines = [
    `health: ${health.level} (${prompt}; optimal ${formatNumber(health.optimal)}, critical ${
      health.critical === null ? 'unknown' : formatNumber(health.critical)
    }${health.countdown === null ? '' : `; new round in ${health.countdown} generations`})`,
  ];
  if (health.reminder) lines.push(`reminder (${health.reminder.id}): ${health.reminder.text}`);
  return lines;
}

/** One session: its model and window, health, verdict with reasons, cost and the latest markers. */
export function renderSessionStatus(summary: SessionSummary, markers: readonly TimelineMarker[]): string {
  const window =
    summary.signals.window === null ? 'unknown window' : `window ${formatNumber(summary.signals.window)}`;
  const lines = [
    `session ${summary.id}: ${summary.model}${summary.agent ? ` (${summary.agent})` : ''}, ${window}, ${plural(summary.generations, 'generation')}${
      summary.signals.costUsd === null ? '' : `, ${formatUsd(summary.signals.costUsd)}`
    }`,
    ...renderHealth(summary.health),
    renderVerdict(summary.verdict),
  ];
  if (markers.length > 0) {
    lines.push(
      'recent markers:',
      ...markers.map((marker) => `  ${marker.timestamp} ${marker.type}: ${marker.detail}`),
    );
  }
  return lines.join('\n');
}

/** The sessions a client may ask about, most recently updated first. */
export function renderSessionList(
  sessions: ReadonlyArray<{ id: string; model: string; health: string; action: string | null }>,
  total: number,
): string {
  if (total === 0) return 'no sessions yet: create one with create_session (or POST /api/v1/sessions)';
  return [
    `${plural(total, 'session')}${sessions.length < total ? ` (the ${sessions.length} most recently updated)` : ''}:`,
    ...sessions.map(
      (session) =>
        `  ${session.id}: ${session.model}, ${session.health}, ${session.action ?? 'no verdict yet'}`,
    ),
  ].join('\n');
}

/** What `report_usage` answers: the generation, its cost, health and the verdict with reasons. */
export function renderUsageAnswer(answer: UsageAnswer): string {
  return [
    `session ${answer.sessionId}, generation ${answer.generation}${
      answer.costUsd === null ? '' : `: ${formatUsd(answer.costUsd)}`
    }`,
    ...renderHealth(answer.health),
    renderVerdict(answer.verdict),
    ...(answer.trigger.fire ? [`compaction trigger: ${answer.trigger.trigger}`] : []),
  ].join('\n');
}

/** A compaction: what it did, the sizes, where the replaced content went, then the new history as JSON. */
export function renderCompaction(answer: Omit<Extract<CompactAnswer, { ok: true }>, 'ok'>): string {
  const lines = [
    `${answer.mode}: ${answer.before.messages} → ${answer.after.messages} messages, ${formatNumber(answer.before.tokens)} → ${formatNumber(answer.after.tokens)} tokens (${answer.counter})`,
    ...answer.evicted.map(
      (task) =>
        `  task ${task.task}: ${plural(task.items, 'item')} evicted${task.archive ? ` to ${task.archive}` : ''}`,
    ),
    ...(answer.archives.length ? [`archived to: ${answer.archives.join(', ')}`] : []),
    answer.sessionRecorded ? 'the session recorded the compaction' : 'no live session recorded it',
    ...answer.warnings.map((warning) => `warning: ${warning}`),
    '',
    'compacted messages (JSON, to replace the history with):',
    JSON.stringify(answer.messages),
  ];
  return lines.join('\n');
}

/** The records of an archive, each with its header and its content. */
export function renderArchiveRecords(records: readonly ArchiveRecord[]): string {
  if (records.length === 0) return 'the archive holds no whole record';
  return records
    .map(
      (record) =>
        `── ${record.itemId} (${record.kind} ${record.field}, archived ${record.archivedAt}, ${Buffer.byteLength(record.content)} bytes)\n${record.content}`,
    )
    .join('\n');
}

function allowedText(issue: ValidationIssue): string {
  const allowed = issue.allowed;
  if (!allowed) return '';
  if (allowed.values) return `; allowed: ${allowed.values.join(', ')}`;
  if (allowed.min !== undefined && allowed.max !== undefined)
    return `; allowed: ${allowed.min} to ${allowed.max}`;
  if (allowed.min !== undefined) return `; allowed: ≥ ${allowed.min}`;
  if (allowed.max !== undefined) return `; allowed: ≤ ${allowed.max}`;
  return '';
}

/** A tool error: the sentence, then each issue with its field, the value given and what is allowed. */
export function renderToolError(error: { error: string; code: string; issues?: ValidationIssue[] }): string {
  return [
    `${error.error} (${error.code})`,
    ...(error.issues ?? []).map(
      (issue) =>
        `- ${issue.field || '(arguments)'}: ${issue.message}${
          issue.value === undefined ? '' : `; given ${JSON.stringify(echoValue(issue.value))}`
        }${allowedText(issue)}`,
    ),
  ].join('\n');
}
