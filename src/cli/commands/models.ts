import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  describeModel,
  type ModelDescription,
  type ModelsSummary,
  modelsSummary,
  type SourcedFigure,
} from '../../models/describe-model.js';
import type { ModelPrice } from '../../models/model-price.js';
import { type AgentName, AgentNameSchema, type ProfileSource } from '../../models/model-profile.js';
import { configFor } from '../config-for.js';
import { type CliIo, UsageError } from '../io.js';
import { SERVE_ENVIRONMENT } from './serve.js';

interface ModelsFlags {
  agent?: string;
  config?: string;
  json?: boolean;
}

const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const SOURCE_WORDS: Readonly<Record<ProfileSource, string>> = {
  registry: 'registry',
  'family-estimate': 'family estimate',
  'agent-reported': 'agent reported',
  config: 'config file',
  session: 'session',
};

function sourced<T>(figure: SourcedFigure<T>, text: (value: T) => string, unknown = 'unknown'): string {
  return figure.value === null ? unknown : `${text(figure.value)} (${SOURCE_WORDS[figure.source!]})`;
}

function priceText(price: ModelPrice): string {
  const parts = [`input $${price.input}`, `output $${price.output}`];
  if (price.cacheRead !== undefined) parts.push(`cache read $${price.cacheRead}`);
  if (price.cacheWrite !== undefined) parts.push(`cache write $${price.cacheWrite}`);
  if (price.reasoning !== undefined) parts.push(`reasoning $${price.reasoning}`);
  const tiers = (price.tiers ?? []).map(
    (tier) =>
      `; above ${grouped(tier.aboveTokens)} prompt tokens input $${tier.input}, output $${tier.output}`,
  );
  return `${parts.join(', ')} per million tokens${tiers.join('')}`;
}

function knownAs(described: ModelDescription): string {
  switch (described.known) {
    case 'registry':
      return `the registry lists it: ${described.registryId} (${described.match} match)`;
    case 'family-estimate':
      return `the registry does not list it: figures estimated from ${described.estimatedFrom}`;
    case 'config':
      return 'the registry does not list it, nor any model of its family: the config file gives its figures';
    case 'unknown':
      return `nothing knows it (not the registry, ${described.family ? `no known model of the family ${described.family}` : 'no family'}, no config entry): its sessions have no window (health unknown) and its calls no price`;
  }
}

/** A config entry for the model to start from: its known window and price, else figures to replace. */
function configExample(described: ModelDescription): string {
  const window = described.contextLength.value ?? 200_000;
  const price = described.price.value ?? { input: 3, output: 15 };
  return `{ "models": { ${JSON.stringify(described.model)}: { "context_length": ${window}, "price": { "input": ${price.input}, "output": ${price.output} } } } }`;
}

/** What `barometer models <name>` prints: each figure with its source, the rule that matched, how to override. */
export function describeText(described: ModelDescription): string {
  const tokens = (value: number) => `${grouped(value)} tokens`;
  const lines = [
    described.model,
    `  known        ${knownAs(described)}`,
    ...(described.familyRule ? [`  family rule  ${described.familyRule}`] : []),
    `  window       ${sourced(described.contextLength, tokens)}`,
    ...(described.inputLength.value === null
      ? []
      : [`  input window ${sourced(described.inputLength, tokens)}`]),
    `  measured at  ${sourced(described.effectiveWindow, tokens)}${described.agentRule ? `: ${described.agentRule}` : described.agent ? '' : ' (give --agent claude-code|codex for the window an agent runs with)'}`,
    `  max output   ${sourced(described.maxOutput, tokens)}`,
    `  price        ${sourced(described.price, priceText, 'unknown: calls are unpriced')}`,
    `  reasoning    ${sourced(described.reasoning, (value) => (value ? 'yes' : 'no'))}`,
    described.configEntry === null
      ? `  config       no entry; your own figures win: put one in barometer.config.json, e.g. ${configExample(described)}`
      : `  config       the entry "${described.configEntry}" applies`,
  ];
  return `${lines.join('\n')}\n`;
}

/** What `barometer models` prints without a name. */
export function summaryText(summary: ModelsSummary, configPath: string | undefined): string {
  return [
    `barometer knows ${grouped(summary.models)} models in ${grouped(summary.listings)} listings of ${grouped(summary.providers)} providers, ${grouped(summary.families)} families (ids that differ only in their version: claude-opus-*, gpt-*-codex).`,
    `Data: ${summary.source}, ${summary.licence}, generated ${summary.generated}.`,
    'A model it does not list is estimated from the newest known model of its family, each figure marked as such; a model of no known family is still measured, without a window or a price.',
    configPath
      ? `Config: ${configPath} (${summary.configEntries} model entr${summary.configEntries === 1 ? 'y' : 'ies'}); its entries win over the registry and estimates.`
      : 'Config: none here. Your own figures win over the registry and estimates: put a barometer.config.json in the working directory (or give --config), e.g.',
    ...(configPath ? [] : [`  ${summary.configExample}`]),
    'barometer models <name> shows what is known about one model and why.',
    '',
  ].join('\n');
}

// The names `loadConfig` looks for, in its order.
const CONFIG_NAMES = ['barometer.config.json', 'barometer.config.yaml', 'barometer.config.yml'];

/** `barometer models [name]`: what barometer knows about a model and why, or a summary of the registry. */
export function registerModelsCommand(program: Command, io: CliIo): void {
  program
    .command('models')
    .description(
      'What barometer knows about a model and why: window, max output, price, reasoning, each with its source',
    )
    .argument(
      '[name]',
      'a model id (claude-opus-4-6, gpt-5.3-codex, openrouter/anthropic/claude-opus-4.8, opus)',
    )
    .option(
      '--agent <agent>',
      `the window an agent runs the model with: ${AgentNameSchema.options.join('|')}`,
    )
    .option(
      '--config <path>',
      `barometer.config.json/.yaml to apply (env ${SERVE_ENVIRONMENT.config}; default: the one in the working directory, if any)`,
    )
    .option('--json', 'print the answer as JSON')
    .addHelpText(
      'after',
      '\nSources: registry (the built-in models.dev table), family estimate (a model the registry does not list, from the newest known model of its family), agent reported, config file, session.\nExamples:\n  barometer models claude-opus-5-5 --agent claude-code\n  barometer models --json | jq .families',
    )
    .action(async (name: string | undefined, flags: ModelsFlags) => {
      let agent: AgentName | undefined;
      if (flags.agent !== undefined) {
        const parsed = AgentNameSchema.safeParse(flags.agent);
        if (!parsed.success)
          throw new UsageError(
            `--agent must be one of ${AgentNameSchema.options.join(', ')}; got ${JSON.stringify(flags.agent)}`,
          );
        agent = parsed.data;
      }
      const path = flags.config ?? io.env[SERVE_ENVIRONMENT.config];
      const configPath =
        path !== undefined && path !== ''
          ? resolve(io.cwd, path)
          : CONFIG_NAMES.map((file) => join(io.cwd, file)).find((file) => existsSync(file));
      const config = await configFor(io, configPath);
      if (name === undefined) {
        const summary = modelsSummary(config);
        io.stdout.write(
          flags.json
            ? `${JSON.stringify({ ...summary, configPath: configPath ?? null }, null, 2)}\n`
            : summaryText(summary, configPath),
        );
        return;
      }
      if (name.trim() === '') throw new UsageError('the model name must not be empty');
      const described = describeModel(name, { ...(agent ? { agent } : {}), ...(config ? { config } : {}) });
      io.stdout.write(flags.json ? `${JSON.stringify(described, null, 2)}\n` : describeText(described));
    });
}
