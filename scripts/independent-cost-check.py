#!/usr/bin/env python3
"""An independent count of what every recorded session's billed calls cost, to check `barometer replay` against.

It shares no code with barometer: it reads each agent's raw log records itself (one call per message or response id,
the last record of an id kept; Codex token counts deduplicated by their cumulative totals), prices each call at its own
model from the models.dev registry snapshot (`<provider>/<model>` rows, `cost` in USD per million tokens) with every
cache tier (reads; 5-minute writes at `cache_write`; 1-hour writes at 2 x input, Anthropic's pricing page; the long-context
tier of a prompt above its size), counts sub-agents (inline sidechains and `<session>/subagents/*.jsonl`) and OpenHands
trajectories in the session's total, then runs `barometer replay --json` on the same file and compares the totals.

Usage: scripts/independent-cost-check.py <traces dir> <registry json> [barometer command…]
"""
import json
import os
import subprocess
import sys

ROOT, REGISTRY = sys.argv[1], sys.argv[2]
BAROMETER = sys.argv[3:] or ['npx', 'tsx', 'src/cli/main.ts']
PRICES = json.load(open(REGISTRY))['models']


def price_of(model, provider_hint=None):
    candidates = [model] if '/' in model and model in PRICES else []
    for provider in [provider_hint, 'anthropic', 'openai', 'google', 'openrouter']:
        if provider and f'{provider}/{model}' in PRICES:
            candidates.append(f'{provider}/{model}')
    for key in candidates:
        if PRICES[key].get('cost'):
            return PRICES[key]['cost']
    return None


def cost(model, uncached, read, write5m, write1h, output, provider=None):
    price = price_of(model, provider)
    if price is None:
        return None
    rates = price
    prompt = uncached + read + write5m + write1h
    for tier in price.get('tiers', []):
        if prompt > tier['tier']['size']:
            rates = tier
    return (uncached * rates['input'] + read * rates.get('cache_read', 0) + write5m * rates.get('cache_write', 0)
            + write1h * 2 * rates['input'] + output * rates['output']) / 1e6


def lines(path):
    for line in open(path, encoding='utf-8'):
        line = line.strip()
        if not line:
            continue
        try:
            yield json.loads(line)
        except ValueError:
            at = line.find('{"', 1)
            while at != -1:
                try:
                    yield json.loads(line[at:])
                    break
                except ValueError:
                    at = line.find('{"', at + 1)


def claude_code(path):
    calls = {}
    files = [path]
    folder = os.path.join(path[:-len('.jsonl')], 'subagents')
    if os.path.isdir(folder):
        files += [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith('.jsonl')]
    for file in files:
        for record in lines(file):
            message = record.get('message')
            if record.get('type') != 'assistant' or not isinstance(message, dict):
                continue
            usage = message.get('usage')
            if not isinstance(usage, dict) or 'input_tokens' not in usage or message.get('model') == '<synthetic>':
                continue
            key = message.get('id') or record.get('requestId') or record.get('uuid')
            calls[(file, key)] = (message.get('model'), usage)
    total = 0.0
    for model, usage in calls.values():
        written = usage.get('cache_creation_input_tokens') or 0
        one_hour = min(written, (usage.get('cache_creation') or {}).get('ephemeral_1h_input_tokens') or 0)
        total += cost(model, usage.get('input_tokens') or 0, usage.get('cache_read_input_tokens') or 0,
                      written - one_hour, one_hour, usage.get('output_tokens') or 0, 'anthropic')
    return len(calls), total


def codex(path):
    model, previous, count, total = None, None, 0, 0.0
    for record in lines(path):
        payload = record.get('payload') or {}
        if record.get('type') in ('turn_context', 'session_meta') and payload.get('model'):
            model = payload['model']
        if record.get('type') == 'event_msg' and payload.get('type') == 'token_count' and payload.get('info'):
            totals = json.dumps(payload['info'].get('total_token_usage'), sort_keys=True)
            if totals == previous:
                continue
            previous = totals
            usage = payload['info'].get('last_token_usage') or {}
            cached = usage.get('cached_input_tokens') or 0
            amount = cost(model, usage['input_tokens'] - cached, cached, 0, 0, usage['output_tokens'], 'openai')
            count += 1
            total = None if amount is None or total is None else total + amount
    return count, total


def pi(path):
    count, total, own = 0, 0.0, 0.0
    for record in lines(path):
        message = record.get('message') or {}
        usage = message.get('usage')
        if record.get('type') != 'message' or message.get('role') != 'assistant' or not usage:
            continue
        if not any(usage.get(key) for key in ('input', 'output', 'cacheRead', 'cacheWrite')):
            continue
        count += 1
        total += cost(message['model'], usage['input'], usage['cacheRead'], usage['cacheWrite'], 0, usage['output'],
                      message.get('provider'))
        own += usage.get('cost', {}).get('total', 0)
    return count, total


def gemini(path):
    calls = {}
    for record in lines(path):
        if record.get('type') == 'gemini' and isinstance(record.get('tokens'), dict):
            calls[record['id']] = (record.get('model'), record['tokens'])
    total = 0.0
    for model, tokens in calls.values():
        cached = tokens.get('cached') or 0
        total += cost(model, tokens['input'] - cached, cached, 0, 0, tokens['output'] + (tokens.get('thoughts') or 0),
                      'google')
    return len(calls), total


def openhands_output(path):
    count, total = 0, 0.0
    for record in lines(path):
        route = 'openrouter' if 'openrouter' in record['metadata']['llm_config']['model'] else None
        for usage in record['metrics']['token_usages']:
            read, write = usage.get('cache_read_tokens') or 0, usage.get('cache_write_tokens') or 0
            model = f"{route}/{usage['model']}" if route else usage['model']
            response_models = {e['tool_call_metadata']['model_response']['model'] for e in record['history']
                               if (e.get('tool_call_metadata') or {}).get('model_response', {}).get('id') == usage['response_id']}
            if route and response_models:
                model = f'{route}/{response_models.pop()}'
            amount = cost(model, usage['prompt_tokens'] - read - write, read, write, 0, usage['completion_tokens'])
            count += 1
            total = None if amount is None or total is None else total + amount
    return count, total


def openhands_trajectory(path):
    events = json.load(open(path))
    calls = {}
    for event in events:
        response = (event.get('tool_call_metadata') or {}).get('model_response')
        if response and 'usage' in response:
            calls.setdefault(response['id'], (response['model'], response['usage']))
    total = 0.0
    for model, usage in calls.values():
        read = usage.get('cache_read_input_tokens') or 0
        write = usage.get('cache_creation_input_tokens') or 0
        total += cost(model, usage['prompt_tokens'] - read - write, read, write, 0, usage['completion_tokens'],
                      'anthropic')
    return len(calls), total


def barometer(path):
    answer = subprocess.run(BAROMETER + ['replay', path, '--json'], capture_output=True, text=True)
    if answer.returncode != 0:
        return None, answer.stderr.strip().splitlines()[-1] if answer.stderr.strip() else 'failed', 0
    result = json.loads(answer.stdout)
    skipped = []

    def visit(session):
        skipped.extend(session['skippedLines'])
        for child in session.get('children', []):
            visit(child)
    visit(result)
    return result['summary']['total'], None, skipped


READERS = {'claude-code': claude_code, 'codex': codex, 'pi-coding-agent': pi, 'gemini': gemini}
print('| session | calls (independent / barometer) | independent $ | barometer $ | difference | unparsed lines |')
print('|---|---|---|---|---|---|')
for agent in sorted(os.listdir(ROOT)):
    folder = os.path.join(ROOT, agent)
    if not os.path.isdir(folder) or agent in ('registries', 'api-cassettes'):
        continue
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            continue
        if agent == 'openhands':
            count, independent = (openhands_output if name.endswith('.jsonl') else openhands_trajectory)(path)
        else:
            count, independent = READERS[agent](path)
        total, problem, skipped = barometer(path)
        if total is None:
            print(f'| {agent}/{name[:44]} | {count} / — | {independent if independent is None else f"{independent:.4f}"} | — ({problem}) | — | — |')
            continue
        mine = total['costUsd']
        difference = '—' if mine is None or not independent else f'{(mine - independent) / independent * 100:+.3f}%'
        print(f'| {agent}/{name[:44]} | {count} / {total["calls"]} | '
              f'{"unknown" if independent is None else f"{independent:.4f}"} | {"unknown" if mine is None else f"{mine:.4f}"} | {difference} | {len(skipped)} |')
