from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'item.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_item = resolve('item')
    pass
    yield '<div class="item '
    yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'kind')))
    yield ' '
    yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'tone')))
    yield '">'
    if environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'ts'):
        pass
        yield '<span class="ts">'
        yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'ts')))
        yield '</span>'
    yield '<span class="kind">'
    yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'kind')))
    yield '</span><span class="title">'
    yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'title')))
    yield '</span>'
    for l_1_tag in environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'tags'):
        _loop_vars = {}
        pass
        yield '<span class="tag '
        yield escape(environment.finalize(l_1_tag))
        yield '">'
        yield escape(environment.finalize(l_1_tag))
        yield '</span>'
    l_1_tag = missing
    if environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'text'):
        pass
        yield '<pre>'
        yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'text')))
        yield '</pre>'
    if environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'detail'):
        pass
        yield '<details><summary>'
        yield escape(environment.finalize(('output' if (environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'kind') == 'tool') else 'details')))
        yield '</summary><pre>'
        yield escape(environment.finalize(environment.getattr((undefined(name='item') if l_0_item is missing else l_0_item), 'detail')))
        yield '</pre></details>'
    yield '</div>'

blocks = {}
debug_info = '1=13&2=36&3=41'