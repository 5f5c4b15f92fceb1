from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_version = resolve('version')
    l_0_run = resolve('run')
    l_0_status = resolve('status')
    l_0_tone = resolve('tone')
    l_0_tasks = resolve('tasks')
    l_0_turns = resolve('turns')
    l_0_tool_calls = resolve('tool_calls')
    l_0_denied = resolve('denied')
    l_0_usage = resolve('usage')
    l_0_hit_rate = resolve('hit_rate')
    l_0_simulated = resolve('simulated')
    l_0_files = resolve('files')
    l_0_more_files = resolve('more_files')
    l_0_log = resolve('log')
    l_0_run_timeline = resolve('run_timeline')
    l_0_cost = l_0_calls = missing
    try:
        t_1 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_4 = environment.filters['lower']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'lower' found.")
    try:
        t_5 = environment.filters['rejectattr']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'rejectattr' found.")
    try:
        t_6 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="generator" content="agentci '
    yield escape(environment.finalize((undefined(name='version') if l_0_version is missing else l_0_version)))
    yield '">\n<title>agentci: '
    yield escape(environment.finalize((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'recipe_name') or environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'recipe'))))
    yield ' — '
    yield escape(environment.finalize((undefined(name='status') if l_0_status is missing else l_0_status)))
    yield '</title>\n<style>\n:root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --muted: #57606a; --line: #d0d7de;\n        --bg2: #f6f8fa; --input: #54aeff; --output: #8250df; --cost: #bf8700; }\n* { box-sizing: border-box; }\nbody { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;\n       color: #1f2328; background: #fff; }\nmain { max-width: 1360px; margin: 0 auto; padding: 16px 24px; }\nh1 { font-size: 20px; margin: 0 0 6px; } h2 { font-size: 18px; margin: 20px 0 6px; }\nh3 { font-size: 15px; margin: 16px 0 6px; }\npre, code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }\npre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; background: var(--bg2);\n      padding: 6px 8px; border-radius: 4px; max-height: 420px; overflow: auto; }\n.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; }\n.badge.ok { background: var(--ok); } .badge.warn { background: var(--warn); } .badge.bad { background: var(--bad); }\n.ok { color: var(--ok); } .warn { color: var(--warn); } .bad { color: var(--bad); }\n.muted { color: var(--muted); }\n.badge.ok, .badge.warn, .badge.bad { color: #fff; }\ntable.facts { border-collapse: collapse; margin: 8px 0; }\ntable.facts td, table.facts th { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }\ntable.facts th { background: var(--bg2); font-weight: 600; }\nsection.task { border-top: 3px solid var(--line); margin-top: 12px; }\ndetails.turn { border-left: 3px solid var(--line); margin: 4px 0; padding-left: 12px; }\ndetails.turn.bad { border-left-color: var(--bad); } details.turn.warn { border-left-color: var(--warn); }\ndetails.turn > summary { cursor: pointer; padding: 2px 0; } details.turn > summary .n { font-weight: 600; }\ndetails.turn[open] > summary { margin-bottom: 4px; }\ndetails.turn.ok, details.turn.warn, details.turn.bad, .item.ok, .item.warn, .item.bad { color: inherit; }\ndetails.turn.bad > summary .n, .item.bad .title { color: var(--bad); } details.turn.warn > summary .n, .item.warn .title { color: var(--warn); }\n.item { margin: 6px 0; padding: 4px 8px; border-radius: 4px; background: #fff; border: 1px solid var(--line); }\n.item.bad { border-color: var(--bad); } .item.warn { border-color: var(--warn); } .item.ok { border-color: var(--ok); }\n.item .kind { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-right: 6px; }\n.item .title { font-weight: 600; }\n.tag { display: inline-block; font-size: 11px; padding: 0 6px; margin-left: 4px; border-radius: 8px; background: var(--bg2); border: 1px solid var(--line); }\n.tag.denied, .tag.bad { background: #ffebe9; border-color: var(--bad); } .tag.warn { background: #fff8c5; border-color: var(--warn); }\n.tag.sim { background: #fff8c5; border-color: var(--warn); font-weight: 600; }\np.outcome { font-size: 15px; margin: 4px 0; } p.facts-line { margin: 4px 0; }\np.checks { margin: 6px 0; } p.checks .label { font-weight: 600; }\n.lead { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 16px; align-items: start; }\n@media (max-width: 1000px) { .lead { grid-template-columns: minmax(0, 1fr); } }\n.lead h3 { margin-top: 8px; }\n.message { border: 1px solid var(--line); border-radius: 4px; padding: 0 12px; max-height: 560px; overflow: auto; }\n.message.claim { border-color: var(--warn); }\n.message pre { max-height: none; } .message table { border-collapse: collapse; }\n.message td, .message th { border: 1px solid var(--line); padding: 2px 8px; }\ndetails.more > summary { cursor: pointer; color: var(--muted); }\n.ts { float: right; font-size: 11px; color: var(--muted); }\n.diff { background: var(--bg2); padding: 6px 0; border-radius: 4px; overflow: auto; max-height: 560px; }\n.diff div { white-space: pre; padding: 0 8px; min-height: 1.3em; }\n.diff .add { background: #dafbe1; } .diff .del { background: #ffebe9; } .diff .hunk { color: #0550ae; background: #ddf4ff; }\n.diff .file { font-weight: 700; border-top: 1px solid var(--line); margin-top: 4px; } .diff .meta { color: var(--muted); }\n.note { border-left: 3px solid var(--warn); padding: 4px 10px; background: #fff8c5; margin: 8px 0; }\nsvg .axis { stroke: var(--line); } svg text { font-size: 11px; fill: var(--muted); }\nsvg .in { fill: var(--input); } svg .out { fill: var(--output); } svg .cost { stroke: var(--cost); fill: none; stroke-width: 2; }\n.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; vertical-align: middle; }\nul.tests { margin: 4px 0; padding-left: 20px; }\n</style>\n</head>\n<body>\n<main>\n'
    def macro(l_1_value, l_1_simulated):
        t_7 = []
        if l_1_value is missing:
            l_1_value = undefined("parameter 'value' was not provided", name='value')
        if l_1_simulated is missing:
            l_1_simulated = undefined("parameter 'simulated' was not provided", name='simulated')
        pass
        if t_6(l_1_value):
            pass
            t_7.append(
                'no known price',
            )
        else:
            pass
            t_7.extend((
                '$',
                escape(environment.finalize(t_1('%.4f', l_1_value))),
            ))
            if l_1_simulated:
                pass
                t_7.append(
                    ' <span class="tag sim" title="a scripted or replayed model: what its recorded usage would cost live, billed to nobody">simulated</span>',
                )
        return concat(t_7)
    context.exported_vars.add('cost')
    context.vars['cost'] = l_0_cost = Macro(environment, macro, 'cost', ('value', 'simulated'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_n, l_1_denied):
        t_8 = []
        if l_1_n is missing:
            l_1_n = undefined("parameter 'n' was not provided", name='n')
        if l_1_denied is missing:
            l_1_denied = undefined("parameter 'denied' was not provided", name='denied')
        pass
        t_8.extend((
            escape(environment.finalize(l_1_n)),
            ' tool call',
            escape(environment.finalize(('' if (l_1_n == 1) else 's'))),
        ))
        if l_1_denied:
            pass
            t_8.extend((
                ' (<strong class="bad">',
                escape(environment.finalize(l_1_denied)),
                ' denied</strong>)',
            ))
        return concat(t_8)
    context.exported_vars.add('calls')
    context.vars['calls'] = l_0_calls = Macro(environment, macro, 'calls', ('n', 'denied'), False, False, False, context.eval_ctx.autoescape)
    yield '<header>\n<h1>agentci: '
    yield escape(environment.finalize((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'recipe_name') or environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'recipe'))))
    yield '</h1>\n<p class="outcome"><span class="badge '
    yield escape(environment.finalize((undefined(name='tone') if l_0_tone is missing else l_0_tone)))
    yield '" id="run-status">'
    yield escape(environment.finalize((undefined(name='status') if l_0_status is missing else l_0_status)))
    yield '</span>\n exit code <strong>'
    yield escape(environment.finalize(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'exit_code')))
    yield '</strong>'
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'reason'):
        pass
        yield ' — '
        yield escape(environment.finalize(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'reason')))
    yield '</p>\n<p class="facts-line" id="run-facts">'
    if (t_2((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks)) == 1):
        pass
        yield 'model '
        yield escape(environment.finalize((environment.getattr(environment.getattr(environment.getitem((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks), 0), 'report'), 'model') or '—')))
        yield ' · '
    yield escape(environment.finalize((undefined(name='turns') if l_0_turns is missing else l_0_turns)))
    yield ' turn'
    yield escape(environment.finalize(('' if ((undefined(name='turns') if l_0_turns is missing else l_0_turns) == 1) else 's')))
    yield ' · '
    yield escape(environment.finalize(context.call((undefined(name='calls') if l_0_calls is missing else l_0_calls), (undefined(name='tool_calls') if l_0_tool_calls is missing else l_0_tool_calls), (undefined(name='denied') if l_0_denied is missing else l_0_denied))))
    yield ' · '
    yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'total_tokens'))))
    yield ' tokens'
    if (environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'cached_tokens') and (not t_6(context.call((undefined(name='hit_rate') if l_0_hit_rate is missing else l_0_hit_rate), (undefined(name='usage') if l_0_usage is missing else l_0_usage))))):
        pass
        yield ' · <span id="cache-hit">cache hit rate '
        yield escape(environment.finalize(t_1('%.0f', (context.call((undefined(name='hit_rate') if l_0_hit_rate is missing else l_0_hit_rate), (undefined(name='usage') if l_0_usage is missing else l_0_usage)) * 100))))
        yield '%</span>'
    yield ' · cost '
    yield escape(environment.finalize(context.call((undefined(name='cost') if l_0_cost is missing else l_0_cost), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'cost_usd'), (undefined(name='simulated') if l_0_simulated is missing else l_0_simulated))))
    yield ' · <span'
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'started_at'):
        pass
        yield ' title="started '
        yield escape(environment.finalize(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'started_at')))
        yield '"'
    yield '>'
    yield escape(environment.finalize(t_1('%.1f', (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'duration_ms') / 1000))))
    yield ' s</span> · '
    yield escape(environment.finalize((t_2((undefined(name='files') if l_0_files is missing else l_0_files)) + (undefined(name='more_files') if l_0_more_files is missing else l_0_more_files))))
    yield ' changed file'
    yield escape(environment.finalize(('' if ((t_2((undefined(name='files') if l_0_files is missing else l_0_files)) + (undefined(name='more_files') if l_0_more_files is missing else l_0_more_files)) == 1) else 's')))
    if (undefined(name='files') if l_0_files is missing else l_0_files):
        pass
        yield ': '
        l_1_loop = missing
        for l_1_f, l_1_loop in LoopContext((undefined(name='files') if l_0_files is missing else l_0_files)[:8], undefined):
            _loop_vars = {}
            pass
            yield '<code>'
            yield escape(environment.finalize(l_1_f))
            yield '</code>'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_f = missing
        if ((t_2((undefined(name='files') if l_0_files is missing else l_0_files)) > 8) or (undefined(name='more_files') if l_0_more_files is missing else l_0_more_files)):
            pass
            yield ' …'
    yield '</p>\n'
    if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'truncated'):
        pass
        yield '<p class="note">events.jsonl is larger than this page reads: its later events are not shown.</p>'
    if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'bad_lines'):
        pass
        yield '<p class="note">'
        yield escape(environment.finalize(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'bad_lines')))
        yield ' line(s) of events.jsonl could not be read.</p>'
    yield '</header>\n\n'
    if (t_2((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks)) > 1):
        pass
        yield '<h2>Tasks</h2>\n<table class="facts">\n<tr><th>task</th><th>status</th><th>exit</th><th>turns</th><th>tool calls</th><th>denied</th><th>tokens</th><th>cost</th></tr>\n'
        l_1_loop = missing
        for l_1_t, l_1_loop in LoopContext((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks), undefined):
            _loop_vars = {}
            pass
            yield '<tr><td><a href="#task-'
            yield escape(environment.finalize(environment.getattr(l_1_loop, 'index')))
            yield '">'
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'name')))
            yield '</a></td><td class="'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'tone')))
            yield '">'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'status')))
            yield '</td><td>'
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'exit_code')))
            yield '</td>\n<td>'
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'turns')))
            yield '</td><td>'
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'tool_calls')))
            yield '</td><td class="'
            yield escape(environment.finalize(('bad' if environment.getattr(l_1_t, 'denied') else '')))
            yield '">'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'denied')))
            yield '</td><td>'
            yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'total_tokens'), _loop_vars=_loop_vars)))
            yield '</td>\n<td>'
            if t_6(environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'cost_usd')):
                pass
                yield '—'
            else:
                pass
                yield escape(environment.finalize(context.call((undefined(name='cost') if l_0_cost is missing else l_0_cost), environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'cost_usd'), environment.getattr(l_1_t, 'simulated'), _loop_vars=_loop_vars)))
            yield '</td></tr>\n'
        l_1_loop = l_1_t = missing
        yield '</table>\n'
    yield '\n'
    l_1_loop = missing
    for l_1_t, l_1_loop in LoopContext((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks), undefined):
        l_1_last = resolve('last')
        l_1_w = resolve('w')
        l_1_max_files = resolve('max_files')
        l_1_c = resolve('c')
        l_1_n = l_1_violated = missing
        _loop_vars = {}
        pass
        l_1_n = environment.getattr(l_1_loop, 'index')
        _loop_vars['n'] = l_1_n
        yield '<section class="task" id="task-'
        yield escape(environment.finalize((undefined(name='n') if l_1_n is missing else l_1_n)))
        yield '">\n'
        if (t_2((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks)) > 1):
            pass
            yield '<h2>Task '
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'name')))
            yield ': <span class="'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'tone')))
            yield '">'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'status')))
            yield '</span> (exit '
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'exit_code')))
            yield ')</h2>\n'
            if environment.getattr(environment.getattr(l_1_t, 'report'), 'reason'):
                pass
                yield '<p>'
                yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'reason')))
                yield '</p>'
        if (t_2((undefined(name='tasks') if l_0_tasks is missing else l_0_tasks)) > 1):
            pass
            yield '<p class="muted">model '
            yield escape(environment.finalize((environment.getattr(environment.getattr(l_1_t, 'report'), 'model') or '—')))
            yield ' · '
            yield escape(environment.finalize(environment.getattr(environment.getattr(l_1_t, 'report'), 'turns')))
            yield ' turns · '
            yield escape(environment.finalize(context.call((undefined(name='calls') if l_0_calls is missing else l_0_calls), environment.getattr(environment.getattr(l_1_t, 'report'), 'tool_calls'), environment.getattr(l_1_t, 'denied'), _loop_vars=_loop_vars)))
            yield ' · '
            yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'total_tokens'), _loop_vars=_loop_vars)))
            yield ' tokens'
            if (environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'cached_tokens') and (not t_6(context.call((undefined(name='hit_rate') if l_0_hit_rate is missing else l_0_hit_rate), environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), _loop_vars=_loop_vars)))):
                pass
                yield ' · cache hit rate '
                yield escape(environment.finalize(t_1('%.0f', (context.call((undefined(name='hit_rate') if l_0_hit_rate is missing else l_0_hit_rate), environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), _loop_vars=_loop_vars) * 100))))
                yield '%'
            if (not t_6(environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'cost_usd'))):
                pass
                yield ' · '
                yield escape(environment.finalize(context.call((undefined(name='cost') if l_0_cost is missing else l_0_cost), environment.getattr(environment.getattr(environment.getattr(l_1_t, 'report'), 'usage'), 'cost_usd'), environment.getattr(l_1_t, 'simulated'), _loop_vars=_loop_vars)))
            yield ' · '
            yield escape(environment.finalize(t_2(environment.getattr(l_1_t, 'files'))))
            yield ' changed file'
            yield escape(environment.finalize(('' if (t_2(environment.getattr(l_1_t, 'files')) == 1) else 's')))
            yield '</p>'
        l_1_violated = t_3(context.eval_ctx, t_5(context, environment.getattr(l_1_t, 'guards'), 'passed'))
        _loop_vars['violated'] = l_1_violated
        if (environment.getattr(l_1_t, 'verify') or environment.getattr(l_1_t, 'guards')):
            pass
            yield '<p class="checks" id="checks-'
            yield escape(environment.finalize((undefined(name='n') if l_1_n is missing else l_1_n)))
            yield '">\n'
            if environment.getattr(l_1_t, 'verify'):
                pass
                yield '<span class="label">Verify:</span> '
                l_2_loop = missing
                for l_2_r, l_2_loop in LoopContext(environment.getattr(l_1_t, 'verify'), undefined):
                    _loop_vars = {}
                    pass
                    yield '<span class="'
                    yield escape(environment.finalize(environment.getattr(l_2_r, 'tone')))
                    yield '">'
                    yield escape(environment.finalize(environment.getattr(l_2_r, 'short')))
                    yield '</span>'
                    if (not environment.getattr(l_2_loop, 'last')):
                        pass
                        yield ' → '
                l_2_loop = l_2_r = missing
                if environment.getattr(l_1_t, 'test_groups'):
                    pass
                    yield ' · <span class="label">Tests:</span> '
                    l_2_loop = missing
                    for (l_2_title, l_2_tone, l_2_ids), l_2_loop in LoopContext(environment.getattr(l_1_t, 'test_groups'), undefined):
                        _loop_vars = {}
                        pass
                        yield '<span class="'
                        yield escape(environment.finalize(l_2_tone))
                        yield '">'
                        yield escape(environment.finalize(t_2(l_2_ids)))
                        yield ' '
                        yield escape(environment.finalize(t_4(l_2_title)))
                        yield '</span>'
                        if (not environment.getattr(l_2_loop, 'last')):
                            pass
                            yield ', '
                    l_2_loop = l_2_title = l_2_tone = l_2_ids = missing
            if environment.getattr(l_1_t, 'guards'):
                pass
                if environment.getattr(l_1_t, 'verify'):
                    pass
                    yield ' · '
                yield '<span class="label">Guards:</span> '
                if (undefined(name='violated') if l_1_violated is missing else l_1_violated):
                    pass
                    l_2_loop = missing
                    for l_2_g, l_2_loop in LoopContext((undefined(name='violated') if l_1_violated is missing else l_1_violated), undefined):
                        _loop_vars = {}
                        pass
                        yield '<span class="bad">'
                        yield escape(environment.finalize(context.call(environment.getattr(l_2_g, 'get'), 'name', '', _loop_vars=_loop_vars)))
                        yield ' violated</span>'
                        if (not environment.getattr(l_2_loop, 'last')):
                            pass
                            yield ', '
                    l_2_loop = l_2_g = missing
                else:
                    pass
                    yield '<span class="ok">all held</span>'
            yield '</p>'
        yield '\n<div class="lead">\n<div>\n<h3>'
        yield escape(environment.finalize(('Final message' if (environment.getattr(environment.getattr(l_1_t, 'report'), 'exit_code') == 0) else "The model's final message (its claim)")))
        yield '</h3>\n<div class="message'
        yield escape(environment.finalize(('' if (environment.getattr(environment.getattr(l_1_t, 'report'), 'exit_code') == 0) else ' claim')))
        yield '" id="final-message-'
        yield escape(environment.finalize((undefined(name='n') if l_1_n is missing else l_1_n)))
        yield '">\n'
        if environment.getattr(l_1_t, 'message'):
            pass
            yield escape(environment.finalize(environment.getattr(l_1_t, 'message')))
        else:
            pass
            yield '<p class="muted">The model left no final message.</p>'
        if environment.getattr(l_1_t, 'output'):
            pass
            yield '<h4>Structured answer (output.json)</h4><pre>'
            yield escape(environment.finalize(environment.getattr(l_1_t, 'output')))
            yield '</pre>'
        yield '</div>\n</div>\n<div>\n<h3>Diff</h3>\n<div id="diff-'
        yield escape(environment.finalize((undefined(name='n') if l_1_n is missing else l_1_n)))
        yield '">\n'
        if t_6(environment.getattr(l_1_t, 'diff')):
            pass
            yield '<p class="muted">The patch is not available.</p>\n'
        elif (not environment.getattr(environment.getattr(l_1_t, 'diff'), 'lines')):
            pass
            yield '<p class="muted">No changes.</p>\n'
        else:
            pass
            yield '<div class="diff mono">'
            for (l_2_css, l_2_line) in environment.getattr(environment.getattr(l_1_t, 'diff'), 'lines'):
                _loop_vars = {}
                pass
                yield '<div class="'
                yield escape(environment.finalize(l_2_css))
                yield '">'
                yield escape(environment.finalize(l_2_line))
                yield '</div>'
            l_2_css = l_2_line = missing
            yield '</div>\n'
            if environment.getattr(environment.getattr(l_1_t, 'diff'), 'omitted_lines'):
                pass
                yield '<p class="note">'
                yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr(environment.getattr(l_1_t, 'diff'), 'omitted_lines'), _loop_vars=_loop_vars)))
                yield ' more lines of the patch are not shown: see patch.diff.</p>'
        yield '</div>\n</div>\n</div>\n\n<h3>Verify</h3>\n'
        if environment.getattr(l_1_t, 'verify'):
            pass
            yield '<table class="facts">\n<tr><th>run</th><th>result</th><th>exit</th><th>tests</th><th>command</th></tr>\n'
            for l_2_r in environment.getattr(l_1_t, 'verify'):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(environment.finalize(environment.getattr(l_2_r, 'label')))
                yield '</td><td class="'
                yield escape(environment.finalize(environment.getattr(l_2_r, 'tone')))
                yield '">'
                yield escape(environment.finalize(environment.getattr(l_2_r, 'result')))
                yield '</td><td>'
                yield escape(environment.finalize(environment.getattr(l_2_r, 'exit_code')))
                yield '</td>\n<td>'
                yield escape(environment.finalize(environment.getattr(l_2_r, 'tests')))
                yield '</td><td'
                if (not environment.getattr(l_2_r, 'note')):
                    pass
                    yield ' class="mono"'
                yield '>'
                yield escape(environment.finalize((environment.getattr(l_2_r, 'note') or environment.getattr(l_2_r, 'command'))))
                yield '</td></tr>\n'
            l_2_r = missing
            yield '</table>\n'
            for (l_2_title, l_2_tone, l_2_ids) in environment.getattr(l_1_t, 'test_groups'):
                _loop_vars = {}
                pass
                yield '<p><strong class="'
                yield escape(environment.finalize(l_2_tone))
                yield '">'
                yield escape(environment.finalize(l_2_title))
                yield ' ('
                yield escape(environment.finalize(t_2(l_2_ids)))
                yield ')</strong></p>\n<ul class="tests">'
                for l_3_i in l_2_ids[:(undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)]:
                    _loop_vars = {}
                    pass
                    yield '<li><code>'
                    yield escape(environment.finalize(l_3_i))
                    yield '</code></li>'
                l_3_i = missing
                if (t_2(l_2_ids) > (undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)):
                    pass
                    yield '<li>… and '
                    yield escape(environment.finalize((t_2(l_2_ids) - (undefined(name='max_files') if l_1_max_files is missing else l_1_max_files))))
                    yield ' more</li>'
                yield '</ul>\n'
            l_2_title = l_2_tone = l_2_ids = missing
            l_1_last = (environment.getitem(environment.getattr(environment.getattr(l_1_t, 'report'), 'verify'), -1) if environment.getattr(environment.getattr(l_1_t, 'report'), 'verify') else None)
            _loop_vars['last'] = l_1_last
            if (((not t_6((undefined(name='last') if l_1_last is missing else l_1_last))) and (not environment.getattr((undefined(name='last') if l_1_last is missing else l_1_last), 'passed'))) and environment.getattr((undefined(name='last') if l_1_last is missing else l_1_last), 'output_tail')):
                pass
                yield '<details class="more"><summary>Output of the last verify run</summary><pre>'
                yield escape(environment.finalize(environment.getattr((undefined(name='last') if l_1_last is missing else l_1_last), 'output_tail')))
                yield '</pre></details>'
        else:
            pass
            yield '<p class="muted">No verify run.</p>'
        yield '\n<h3>Guards</h3>\n'
        if environment.getattr(l_1_t, 'guards'):
            pass
            yield '<table class="facts">\n<tr><th>guard</th><th>result</th><th>message</th><th>reverted (not in the patch)</th></tr>\n'
            for l_2_g in environment.getattr(l_1_t, 'guards'):
                _loop_vars = {}
                pass
                yield '<tr><td>'
                yield escape(environment.finalize(context.call(environment.getattr(l_2_g, 'get'), 'name', '', _loop_vars=_loop_vars)))
                yield '</td><td class="'
                yield escape(environment.finalize(('ok' if context.call(environment.getattr(l_2_g, 'get'), 'passed', _loop_vars=_loop_vars) else 'bad')))
                yield '">'
                yield escape(environment.finalize(('held' if context.call(environment.getattr(l_2_g, 'get'), 'passed', _loop_vars=_loop_vars) else 'violated')))
                yield '</td>\n<td>'
                yield escape(environment.finalize((context.call(environment.getattr(l_2_g, 'get'), 'message', _loop_vars=_loop_vars) or '')))
                yield '</td><td>'
                for l_3_p in (context.call(environment.getattr(l_2_g, 'get'), 'reverted', _loop_vars=_loop_vars) or [])[:(undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)]:
                    _loop_vars = {}
                    pass
                    yield '<code>'
                    yield escape(environment.finalize(l_3_p))
                    yield '</code> '
                l_3_p = missing
                yield '</td></tr>\n'
            l_2_g = missing
            yield '</table>\n'
        else:
            pass
            yield '<p class="muted">No guards.</p>'
        yield '\n'
        if environment.getattr(l_1_t, 'weakened'):
            pass
            l_1_w = environment.getattr(l_1_t, 'weakened')
            _loop_vars['w'] = l_1_w
            yield '<h3>Weakened tests</h3>\n'
            if environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'findings'):
                pass
                yield '<p class="'
                yield escape(environment.finalize(('bad' if (environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'mode') == 'on') else 'muted')))
                yield '">'
                yield escape(environment.finalize(t_2(environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'findings'))))
                yield ' finding(s)'
                if (environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'mode') == 'report'):
                    pass
                    yield ', reported only (guards.weakened_tests: report)'
                else:
                    pass
                    yield ': the change made the tests weaker, so the task fails'
                yield '.</p>\n<table class="facts">\n<tr><th>test or file</th><th>what the change did</th><th>kind</th></tr>\n'
                for l_2_f in environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'findings')[:(undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)]:
                    _loop_vars = {}
                    pass
                    yield '<tr><td><code>'
                    yield escape(environment.finalize(context.call(environment.getattr(l_2_f, 'get'), 'test', '', _loop_vars=_loop_vars)))
                    yield '</code></td><td>'
                    yield escape(environment.finalize(context.call(environment.getattr(l_2_f, 'get'), 'detail', '', _loop_vars=_loop_vars)))
                    yield '</td><td>'
                    yield escape(environment.finalize(context.call(environment.getattr(l_2_f, 'get'), 'kind', '', _loop_vars=_loop_vars)))
                    yield '</td></tr>\n'
                l_2_f = missing
                yield '</table>'
                if (t_2(environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'findings')) > (undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)):
                    pass
                    yield '<p class="muted">… and '
                    yield escape(environment.finalize((t_2(environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'findings')) - (undefined(name='max_files') if l_1_max_files is missing else l_1_max_files))))
                    yield ' more (result.json)</p>'
            if environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'set_aside'):
                pass
                yield '<p class="muted">Set aside while verify ran (the agent made them; the ignore rules hide them from the patch): '
                for l_2_p in environment.getattr((undefined(name='w') if l_1_w is missing else l_1_w), 'set_aside')[:(undefined(name='max_files') if l_1_max_files is missing else l_1_max_files)]:
                    _loop_vars = {}
                    pass
                    yield '<code>'
                    yield escape(environment.finalize(l_2_p))
                    yield '</code> '
                l_2_p = missing
                yield '</p>'
        yield '\n<h3>Tokens and cost per turn</h3>\n'
        if environment.getattr(l_1_t, 'chart'):
            pass
            l_1_c = environment.getattr(l_1_t, 'chart')
            _loop_vars['c'] = l_1_c
            yield '<svg viewBox="0 0 '
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'width')))
            yield ' '
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'height')))
            yield '" width="100%" style="max-width: 900px" role="img" aria-label="tokens and cost per turn">\n<line class="axis" x1="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left')))
            yield '" y1="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'base_y')))
            yield '" x2="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'right_x')))
            yield '" y2="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'base_y')))
            yield '"/>\n<line class="axis" x1="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left')))
            yield '" y1="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'top')))
            yield '" x2="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left')))
            yield '" y2="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'base_y')))
            yield '"/>\n<text x="'
            yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left') - 6)))
            yield '" y="'
            yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'top') + 4)))
            yield '" text-anchor="end">'
            yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'max_tokens'), _loop_vars=_loop_vars)))
            yield '</text>\n<text x="'
            yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left') - 6)))
            yield '" y="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'base_y')))
            yield '" text-anchor="end">0</text>\n'
            if (not t_6(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'max_cost'))):
                pass
                yield '<line class="axis" x1="'
                yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'right_x')))
                yield '" y1="'
                yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'top')))
                yield '" x2="'
                yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'right_x')))
                yield '" y2="'
                yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'base_y')))
                yield '"/>\n<text x="'
                yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'right_x') + 6)))
                yield '" y="'
                yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'top') + 4)))
                yield '">$'
                yield escape(environment.finalize(t_1('%.4f', environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'max_cost'))))
                yield '</text>'
            for l_2_b in environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'bars'):
                _loop_vars = {}
                pass
                yield '<g><title>'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'tip')))
                yield '</title><rect class="in" x="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'x')))
                yield '" y="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'input_y')))
                yield '" width="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'width')))
                yield '" height="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'input_h')))
                yield '"/><rect class="out" x="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'x')))
                yield '" y="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'output_y')))
                yield '" width="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'width')))
                yield '" height="'
                yield escape(environment.finalize(environment.getattr(l_2_b, 'output_h')))
                yield '"/></g>\n'
            l_2_b = missing
            if environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'cost_points'):
                pass
                yield '<polyline class="cost" points="'
                yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'cost_points')))
                yield '"/>'
            yield '<text x="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'left')))
            yield '" y="'
            yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'height') - 8)))
            yield '">'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'first_label')))
            yield '</text>\n<text x="'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'right_x')))
            yield '" y="'
            yield escape(environment.finalize((environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'height') - 8)))
            yield '" text-anchor="end">'
            yield escape(environment.finalize(environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'last_label')))
            yield '</text>\n</svg>\n<p class="legend muted"><span style="background:var(--input)"></span>input tokens<span style="background:var(--output)"></span>output and thinking tokens'
            if environment.getattr((undefined(name='c') if l_1_c is missing else l_1_c), 'cost_points'):
                pass
                yield '<span style="background:var(--cost)"></span>cost of the turn'
                if environment.getattr(l_1_t, 'simulated'):
                    pass
                    yield ' (simulated)'
            yield '</p>\n'
        else:
            pass
            yield '<p class="muted">No model call.</p>'
        yield '\n<h3>Timeline</h3>\n'
        if environment.getattr(environment.getattr(l_1_t, 'timeline'), 'omitted'):
            pass
            yield '<p class="note">'
            yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr(environment.getattr(l_1_t, 'timeline'), 'omitted'), _loop_vars=_loop_vars)))
            yield ' timeline entries in the middle are not shown (events.jsonl has them all).</p>'
        for l_2_turn in environment.getattr(environment.getattr(l_1_t, 'timeline'), 'turns'):
            _loop_vars = {}
            pass
            yield '<details class="turn '
            yield escape(environment.finalize(environment.getattr(l_2_turn, 'tone')))
            yield '">\n<summary><span class="n">'
            if environment.getattr(l_2_turn, 'number'):
                pass
                yield 'Turn '
                yield escape(environment.finalize(environment.getattr(l_2_turn, 'number')))
            else:
                pass
                yield 'Before the first turn'
            yield '</span>'
            if environment.getattr(l_2_turn, 'tokens'):
                pass
                yield ' <span class="muted">· '
                yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr(l_2_turn, 'tokens'), _loop_vars=_loop_vars)))
                yield ' tokens'
                if (not t_6(environment.getattr(l_2_turn, 'cost'))):
                    pass
                    yield ' · $'
                    yield escape(environment.finalize(t_1('%.4f', environment.getattr(l_2_turn, 'cost'))))
                yield '</span>'
            for (l_3_text, l_3_tone) in context.call(environment.getattr(l_2_turn, 'digest'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield ' <span class="tag '
                yield escape(environment.finalize(l_3_tone))
                yield '">'
                yield escape(environment.finalize(l_3_text))
                yield '</span>'
            l_3_text = l_3_tone = missing
            yield '</summary>\n'
            for l_3_item in environment.getattr(l_2_turn, 'items'):
                _loop_vars = {}
                pass
                template = environment.get_template('item.html.j2', 'report.html.j2')
                gen = template.root_render_func(template.new_context(context.get_all(), True, {'item': l_3_item, 'turn': l_2_turn, 'c': l_1_c, 'last': l_1_last, 'loop': l_1_loop, 'n': l_1_n, 't': l_1_t, 'violated': l_1_violated, 'w': l_1_w, 'calls': l_0_calls, 'cost': l_0_cost}))
                try:
                    for event in gen:
                        yield event
                finally: gen.close()
            l_3_item = missing
            yield '</details>\n'
        l_2_turn = missing
        yield '</section>\n'
    l_1_loop = l_1_t = l_1_n = l_1_violated = l_1_last = l_1_w = l_1_max_files = l_1_c = missing
    yield '\n'
    if (undefined(name='run_timeline') if l_0_run_timeline is missing else l_0_run_timeline):
        pass
        yield '<h2>Run events</h2>\n'
        for l_1_turn in environment.getattr((undefined(name='run_timeline') if l_0_run_timeline is missing else l_0_run_timeline), 'turns'):
            _loop_vars = {}
            pass
            for l_2_item in environment.getattr(l_1_turn, 'items'):
                _loop_vars = {}
                pass
                template = environment.get_template('item.html.j2', 'report.html.j2')
                gen = template.root_render_func(template.new_context(context.get_all(), True, {'item': l_2_item, 'turn': l_1_turn, 'calls': l_0_calls, 'cost': l_0_cost}))
                try:
                    for event in gen:
                        yield event
                finally: gen.close()
            l_2_item = missing
        l_1_turn = missing
    yield '<footer><p class="muted">Run '
    yield escape(environment.finalize(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'run_id')))
    yield ' of <span class="mono">'
    yield escape(environment.finalize(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'recipe')))
    yield '</span> · '
    yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'prompt_tokens'))))
    yield ' input, '
    yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'output_tokens'))))
    yield ' output and '
    yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'thoughts_tokens'))))
    yield ' thinking tokens ('
    yield escape(environment.finalize(context.call(environment.getattr('{:,}', 'format'), environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'cached_tokens'))))
    yield ' of the input from the prompt cache) in '
    yield escape(environment.finalize(environment.getattr((undefined(name='usage') if l_0_usage is missing else l_0_usage), 'model_calls')))
    yield ' model calls. Written by agentci '
    yield escape(environment.finalize((undefined(name='version') if l_0_version is missing else l_0_version)))
    yield ' from events.jsonl, result facts and patch.diff.</p></footer>\n</main>\n</body>\n</html>'

blocks = {}
debug_info = '7=64&8=66&67=70&68=96&70=119&71=121&72=125&73=132&74=182&75=185&78=191&82=195&83=199&84=209&85=219&90=230&91=238&92=241&93=243&94=246&95=254&97=259&98=284&99=286&100=291&101=325&106=349&107=351&108=355&109=361&114=367&115=369&116=372&118=378&119=388&126=394&129=397&130=401&131=409&134=419&135=423&136=429&138=443&139=445&143=454&146=457&147=461&148=467&153=483&155=488&158=502&159=506&161=514&163=519&167=531&168=536&169=540&170=548&171=556&172=562&173=566&174=577&175=583&177=606&178=612&179=618&181=624&185=635&186=640&187=644&188=646&189=674&195=689&197=692&199=707'