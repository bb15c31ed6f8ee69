"""The visitor: walks a module's statements (those on candidate lines), follows names per
scope and per branch arm, and collects parameter_map assignments and config calls as groups
of entries, plus lint's own findings about protobuf and call signatures (NBL010-NBL012)."""
import ast
import bisect

from npu_bridge.ge import argtypes as _argtypes, config_schema as _config_schema
from npu_bridge.ge import plugin_args as _plugin_args
from npu_bridge.ge.config_schema import BY_NAME as _CLASSES
from npu_bridge.ge.config_schema import memory_seed_form as _memory_seed_form
from npu_bridge.tools.lint.checks import _catalog, found
from npu_bridge.tools.lint.literals import (ATTR_FIELDS, SCALAR_FIELDS, _NOT_LITERAL,
    _attr_for_field, _dotted, alternatives, literal_value)
from npu_bridge.tools.lint.prefilter import _text_lines, _word_lines
from npu_bridge.tools.lint.schema import (PLUGIN_FUNCTION, _CALLABLES, _CUSTOM_GRAPH_OPTIMIZER,
                                          _CUSTOM_OPTIMIZERS, _NPU_OPTIMIZER)
from npu_bridge.tools.lint.scopes import (_EXPR_FIELDS, _FUNCTION_POINT, _LOOP_TYPES, _MATCH,
    _MISSING, _NESTED, _RAISE, _SCOPE_TYPES, _SCOPES, _TRY, _Entry, _Group, _Scope, _catch_all,
    _exit_kinds)

class _Collector:
    """Collects parameter_map assignments (grouped by owner and scope) and config calls.

    Walks statements, not every node: a statement whose lines hold no candidate text
    (`_CANDIDATE`, or a name lint follows) is skipped whole, which keeps lint fast on large
    model files. Every expression of a visited statement is searched for config calls
    (decorators, defaults, annotations, bases, lambda and comprehension bodies...).

    Names are resolved as Python does: a name bound in a function (or class) body is local
    there, else it is the enclosing function's, else the module's (`global` and `nonlocal`
    honoured). Function bodies are visited after the module body (they run when called,
    typically from its end), nested ones after their enclosing function's.
    """

    def __init__(self, candidate_lines, class_lines=None, source=None, names=()):
        self.groups = []
        self.findings = []  # (line, col, code, severity, message, option)
        # whether the file may hold `:=` (a binding inside an expression): when not, no
        # expression is searched for one (see `_expressions`, `_local_names`); the sorted
        # numbers of the lines holding one (None: unknown, search every expression)
        self._walrus = source is None or (b":=" if isinstance(source, bytes) else ":=") in source
        self._walrus_lines = _text_lines(source, ":=") if self._walrus and source is not None \
            else None
        self._module = self._cur = _Scope("module")
        self._pending = []             # function bodies to visit: (def, enclosing scope, path)
        self._functions = 0
        self._done_calls = set()
        self._checked_calls = set()    # config calls whose arguments were checked (NBL012, NPB160)
        self._lines = candidate_lines  # sorted line numbers
        # sorted numbers of the lines naming a config class (None: unknown, walk everything)
        self._class_lines = class_lines
        self._any_alias = False        # a config class is bound to another name somewhere
        # current ((branch point, arm), ...); an arm is an int, or the frozenset of the arms
        # falling through for the statements after a branch point where some arm leaves
        self._path = ()
        self._exits = {}               # branch point -> how its leaving arms leave (`_arms`)
        self._branch_points = 0
        self._source = source          # to add the lines of a name followed (`_track`)
        self._tracked = set(names)     # names whose lines are already candidates
        # names that are (or were) in some scope's owners (first part), aliases, classes or
        # configs: binding any other name needs no scope lookup
        self._followed = set(_CALLABLES)

    # --- walking --------------------------------------------------------------------------

    def visit_module(self, tree):
        self.visit_body(tree.body)
        pending = self._pending
        i = 0
        while i < len(pending):
            node, parent, path = pending[i]
            i += 1
            self._cur = _Scope("function", parent, node, self._walrus)
            self._path = path
            self.visit_body(node.body)
        self._cur, self._path = self._module, ()

    def visit_body(self, body):
        lines = self._lines
        for stmt in body:
            lo = stmt.lineno
            if type(stmt) in _SCOPE_TYPES and stmt.decorator_list:
                lo = stmt.decorator_list[0].lineno   # decorators come before the `def` line
            i = bisect.bisect_left(lines, lo)
            if i < len(lines) and lines[i] <= (stmt.end_lineno or lo):
                self._statement(stmt)
                lines = self._lines   # `_track` may have added lines

    def _statement(self, stmt):
        # Every expression the statement holds (not its nested statements), first: they are
        # evaluated before the statement binds anything; then the statement's own handler.
        t = type(stmt)
        fields = _EXPR_FIELDS.get(t)
        if fields is None:
            fields = _EXPR_FIELDS[t] = tuple(f for f in stmt._fields if f not in _NESTED)
        for name in fields:
            value = getattr(stmt, name, None)
            if isinstance(value, ast.AST):
                self._expressions(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self._expressions(item)
        handler = _HANDLERS.get(t)
        if handler is None:
            self._nested_bodies(stmt)
        else:
            handler(self, stmt)

    # --- one handler per statement type (`_HANDLERS`; others: `_nested_bodies`) -------------

    def _nested_bodies(self, stmt):
        for name in ("body", "orelse", "finalbody"):
            value = getattr(stmt, name, None)
            if value:
                self.visit_body(value)

    def _class_def(self, stmt):
        # a class body runs now, in a scope of its own
        self._bind(stmt.name)
        saved, self._cur = self._cur, _Scope("class", self._cur, stmt, self._walrus)
        self.visit_body(stmt.body)
        self._cur = saved

    def _function_def(self, stmt):
        # a function body runs later (visit_module), as an arm of its own
        self._bind(stmt.name)
        self._functions += 1
        path = tuple(p for p in self._path if p[0] != _FUNCTION_POINT)
        self._pending.append((stmt, self._cur, path + ((_FUNCTION_POINT, self._functions),)))

    def _import(self, stmt):
        from_import = type(stmt) is ast.ImportFrom
        for alias in stmt.names:
            if alias.name == "*":
                continue
            cls = alias.name if from_import and alias.name in _CALLABLES else None
            self._bind(alias.asname or alias.name.partition(".")[0], cls)
            if cls and alias.asname:
                self._any_alias = True
                self._track(alias.asname)

    def _assign(self, stmt):
        for target in stmt.targets:
            self._assignment(target, stmt.value)
        for target in stmt.targets:
            self._rebind(target, stmt.value)

    def _ann_assign(self, stmt):
        if stmt.value is not None:   # `x: int` alone binds nothing
            self._assignment(stmt.target, stmt.value)
            self._rebind(stmt.target, stmt.value)

    def _aug_assign(self, stmt):
        self._rebind(stmt.target, None)

    def _delete(self, stmt):
        for target in stmt.targets:
            self._rebind(target, None)

    def _with(self, stmt):
        for item in stmt.items:
            if item.optional_vars is not None:
                self._rebind(item.optional_vars, None)
        self.visit_body(stmt.body)

    def _if(self, stmt):
        self._path = self._arms([stmt.body, stmt.orelse])

    def _try(self, stmt):
        for handler in stmt.handlers:
            if handler.type is not None:
                self._expressions(handler.type)
            if handler.name:
                self._bind(handler.name)
        # the body (then its else) and each handler are exclusive; finally always runs
        # (also after an arm that leaves: the arms' exits apply after it)
        saved = self._path
        after = self._arms([stmt.body + stmt.orelse] + [h.body for h in stmt.handlers],
                           caught=stmt.handlers)
        self._path = saved
        self.visit_body(stmt.finalbody)
        self._path = after + self._path[len(saved):]

    def _match(self, stmt):
        for case in stmt.cases:
            if case.guard is not None:
                self._expressions(case.guard)
        bodies = [case.body for case in stmt.cases]
        if not (stmt.cases and _catch_all(stmt.cases[-1])):
            bodies.append([])   # no case matches: nothing runs
        self._path = self._arms(bodies)

    def _for(self, stmt):
        self._rebind(stmt.target, None)
        self._loop(stmt)

    def _loop(self, stmt):
        # continue/break leave the rest of the loop body only
        saved = self._path
        self.visit_body(stmt.body)
        kinds = self._exits
        self._path = saved + tuple(c for c in self._path[len(saved):]
                                   if "loop" not in kinds[c[0]])
        self.visit_body(stmt.orelse)

    def _expressions(self, node):
        # Only calls of a config class matter (visit_Call), and `:=` bindings. Without aliases
        # of a class such a call names its class in its own lines, so an expression whose
        # lines name none holds none: not walked (most of a model file's candidate
        # statements), unless the expression's lines hold a `:=`.
        if self._walrus:
            lines = self._walrus_lines
            lo = getattr(node, "lineno", None)
            if lines is None or lo is None:
                self._walk_walrus(node)
                return
            i = bisect.bisect_left(lines, lo)
            if i < len(lines) and lines[i] <= (node.end_lineno or lo):
                self._walk_walrus(node)
                return
        lines = self._class_lines
        if lines is not None and not self._any_alias:
            lo = getattr(node, "lineno", None)
            if lo is not None:
                i = bisect.bisect_left(lines, lo)
                if i == len(lines) or lines[i] > (node.end_lineno or lo):
                    return
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.visit_Call(sub)

    def _walk_walrus(self, node):
        """`_expressions` in a file holding `:=`: config calls, and each `name := value`
        bound as `name = value` is (`_rebind`) once its value is read, in source order. A
        lambda's `:=` binds in the lambda (not followed); a comprehension's in this scope."""
        stack = [(node, False)]
        while stack:
            n, bound = stack.pop()
            if bound:
                self._rebind(n.target, n.value)
                continue
            t = type(n)
            if t is ast.Call:
                self.visit_Call(n)
            elif t is ast.NamedExpr:
                stack.append((n, True))
            elif t is ast.Lambda:
                for sub in ast.walk(n):
                    if isinstance(sub, ast.Call):
                        self.visit_Call(sub)
                continue
            children = list(ast.iter_child_nodes(n))
            stack.extend((c, False) for c in reversed(children))

    def _arms(self, bodies, caught=()):
        """Visit mutually exclusive statement lists (if/else, try/except, match cases): their
        entries get different arms of one new branch point, so they are never combined.

        Returns the path of the statements after them. When some arm always leaves the block
        (`_exit_kinds`: return, raise, continue, break), those statements run only after
        the arms that fall through: the path gets `(point, frozenset(those arms))`, an
        exit constraint, kept until the place the exit goes to (`self._exits[point]`:
        a loop's end for continue/break, a try with handlers for a raise in its body
        (`caught`), else the function's end). The exit constraints left by a falling-through
        arm (an exit in one of its own nested arms) are kept too."""
        self._branch_points += 1
        point, saved = self._branch_points, self._path
        start = len(saved) + 1
        kept, falls, exits = [], [], frozenset()
        for arm, body in enumerate(bodies):
            self._path = saved + ((point, arm),)
            self.visit_body(body)
            kinds = _exit_kinds(body) if body else None
            if kinds is not None and caught and arm == 0:
                kinds = kinds - _RAISE or None   # (a handler may catch it: then it goes on)
            if kinds is not None:
                exits |= kinds
                continue
            falls.append(arm)
            extra = self._path[start:]
            if extra and caught and arm == 0:
                extra = tuple(c for c in extra if "raise" not in self._exits[c[0]])
            kept.extend(extra)
        after = saved + tuple(kept)
        if exits:
            self._exits[point] = exits
            after += ((point, frozenset(falls)),)
        return after

    # --- names ------------------------------------------------------------------------------

    def _scope_of(self, name):
        """The scope `name` belongs to where the walk is: the current body when the name is
        local there, else the nearest enclosing function that binds it, else the module.
        (Class bodies are not seen from the functions inside them.)"""
        cur = self._cur
        if cur.kind == "module":
            return cur
        found = cur.resolved.get(name, _MISSING)
        if found is _MISSING:
            found, scope, first = self._module, cur, True
            while scope.kind != "module":
                if first or scope.kind == "function":
                    if name in scope.local_names():   # (never a `global` name)
                        found = scope
                        break
                    if name in scope.globals:
                        break
                first = False
                scope = scope.parent
            cur.resolved[name] = None if found is cur else found
            return found
        return cur if found is None else found

    def _track(self, name):
        """Make every line using `name` a candidate line (the name is followed from now on)."""
        if name in self._tracked:
            return
        self._tracked.add(name)
        source = self._source
        if source is None:
            return
        found = _word_lines(source, name.encode("utf-8") if isinstance(source, bytes) else name)
        if not found.issubset(self._lines):
            self._lines = sorted(found.union(self._lines))

    def _bind(self, name, cls=None, value_node=None):
        """`name` bound anew (to config class `cls`, to a config call `value_node`, or to
        something else) in the scope it belongs to."""
        if name not in self._followed and cls is None and value_node is None:
            return None   # nothing lint follows has this name: nothing to forget
        self._followed.add(name)
        scope = self._scope_of(name)
        for owner in [o for o in scope.owners if o == name or o.startswith(name + ".")]:
            del scope.owners[owner]
        scope.aliases.pop(name, None)
        scope.configs.pop(name, None)
        if cls is not None or name in scope.classes or name in _CALLABLES:
            scope.classes[name] = cls
        if value_node is not None:
            scope.configs[name] = (value_node, None if self._cur is scope else self._cur)
            self._track(name)
        return scope

    def _class_of_name(self, name):
        """The config class `name` is bound to where the walk is, or None."""
        if name not in _CALLABLES and not self._any_alias:
            return None
        scope = self._scope_of(name)
        cls = scope.classes.get(name, _MISSING)
        if cls is not _MISSING:
            return cls
        if scope.kind != "module":
            return None   # a local name bound to something else (a parameter, ...)
        return name if name in _CALLABLES else None

    def _class_ref(self, node):
        """The config class an expression names (`NPURunConfig`, `ncfg.MemoryConfig`, an
        alias), or None."""
        if isinstance(node, ast.Name):
            return self._class_of_name(node.id)
        if isinstance(node, ast.Attribute) and node.attr in _CALLABLES:
            return node.attr
        return None

    def _rebind(self, target, value_node):
        """A name (or attribute) bound anew: a parameter_map owner or alias of that name is
        another object from here on; `name = <owner>.parameter_map` makes an alias,
        `name = MemoryConfig` a class alias, `name = MemoryConfig(...)` a config instance."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._rebind(elt.value if isinstance(elt, ast.Starred) else elt, None)
            return
        if isinstance(target, ast.Name):
            name = target.id
            cls = config = None
            if value_node is not None:
                cls = self._class_ref(value_node)
                if cls is None and isinstance(value_node, ast.Call) \
                        and self._class_name(value_node) in _CLASSES:
                    config = value_node
            is_map = isinstance(value_node, ast.Attribute) and value_node.attr == "parameter_map"
            if is_map:
                self._followed.add(name)
            scope = self._bind(name, cls, config)
            if cls is not None:
                self._any_alias = True
                self._track(name)
            if is_map:
                owner, owner_scope = self._owner(value_node.value)
                scope.aliases[name] = self._owner_group(owner, owner_scope, value_node)
                if owner == name and owner_scope is scope:
                    # `op = op.parameter_map`: the map outlives the name
                    owner_scope.owners.pop(owner, None)
                self._track(name)
            elif _adds_custom_optimizer(value_node):
                group = self._owner_group(*self._owner(target), value_node)
                self._name_from_add(group, value_node)
                group.container = group.container or self._config_proto(value_node)
            return
        text = _dotted(target) if isinstance(target, ast.Attribute) else None
        if text is None:
            return
        if text.partition(".")[0] in self._followed:
            scope = self._scope_of(text.partition(".")[0])
            for owner in [o for o in scope.owners if o == text or o.startswith(text + ".")]:
                del scope.owners[owner]
        if _adds_custom_optimizer(value_node):   # `self.op = ...custom_optimizers.add()`
            group = self._owner_group(*self._owner(target), value_node)
            self._name_from_add(group, value_node)
            group.container = group.container or self._config_proto(value_node)

    def _config_proto(self, add_node):
        """`(name, scope)` of the ConfigProto `X` of `X.graph_options.rewrite_options.
        custom_optimizers.add()`, or None."""
        text = _dotted(add_node.func.value) if isinstance(add_node.func, ast.Attribute) else None
        suffix = ".graph_options.rewrite_options." + _CUSTOM_OPTIMIZERS
        if text is None or not text.endswith(suffix):
            return None
        base = text[:-len(suffix)]
        return base, self._scope_of(base.partition(".")[0])

    def _optimizer_name(self, target, value_node):
        """`<owner>.name = VALUE` for a custom optimizer lint follows (bound to
        `...custom_optimizers.add()` or owning a parameter_map): its group takes the name
        when it is a literal string (else the name is unknown: read as NpuOptimizer). A
        group named otherwise is checked even without entries (NPB107)."""
        owner, scope = self._owner(target.value)
        group = scope.owners.get(owner)
        if group is None or group.kind != "parameter_map":
            return
        self._set_name(group, value_node, target)

    def _name_from_add(self, group, add_node):
        """`.add(name="...")`: the custom optimizer's name given where it is made."""
        if group.name_pos is not None or not _adds_custom_optimizer(add_node):
            return
        for keyword in add_node.keywords:
            self._set_name(group, keyword.value, keyword.value)

    def _set_name(self, group, value_node, at):
        """The group's custom optimizer is named `value_node` (a literal string, else unknown:
        read as NpuOptimizer), at the position of node `at`; a group named otherwise is
        checked even without entries (NPB107)."""
        value = literal_value(value_node)
        group.opt_name = value if isinstance(value, str) else None
        group.name_pos = (at.lineno, at.col_offset + 1)
        if group.opt_name not in (None, _NPU_OPTIMIZER) and not group.added:
            group.added = True
            group.line, group.col = group.name_pos
            self.groups.append(group)

    def _owner(self, node):
        """`(text, scope)` of a parameter_map owner expression (`custom_op`, `self.op`)."""
        text = _dotted(node)
        if text is None:
            return ast.dump(node), self._cur
        return text, self._scope_of(text.partition(".")[0])

    def _owner_group(self, owner, scope, node):
        groups = scope.owners
        group = groups.get(owner)
        if group is None:
            group = groups[owner] = _Group("parameter_map", node.lineno, node.col_offset + 1)
            self._followed.add(owner.partition(".")[0])
            self._track(owner.rpartition(".")[2])
        return group

    def _assignment(self, target, value_node):
        # <owner>.parameter_map["KEY"].FIELD = VALUE (or .get_or_create("KEY"): _map_entry)
        entry = _map_entry(target.value) if isinstance(target, ast.Attribute) else None
        if entry is None:
            if isinstance(target, ast.Attribute) and target.attr == "name":
                self._optimizer_name(target, value_node)
            return
        pm, key_node, method = entry
        alias = self._scope_of(pm.id).aliases.get(pm.id) if isinstance(pm, ast.Name) else None
        if alias is None and not ((isinstance(pm, ast.Attribute) and pm.attr == "parameter_map")
                                  or (isinstance(pm, ast.Name) and pm.id == "parameter_map")):
            return
        if not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
            return
        key, field = key_node.value, target.attr
        line, col = target.lineno, target.col_offset + 1
        access = ('parameter_map.%s("%s")' % (method, key) if method
                  else 'parameter_map["%s"]' % key)
        if field not in ATTR_FIELDS:
            self.findings.append(found(line, col, "NBL010", key, subject="%s.%s" % (access, field),
                                       field=field, fields=", ".join(SCALAR_FIELDS + ("list",))))
            return
        written = []   # (value, bool_int, path): one per arm of a conditional expression
        for value_node, path in self._arms_of(value_node):
            value = literal_value(value_node)
            bool_int = None
            if value is not _NOT_LITERAL and field in SCALAR_FIELDS:
                if field == "b" and type(value) is int and value not in (0, 1):
                    bool_int = value   # protobuf stores True (NPB162: _bool_int_finding)
                error = _argtypes.protobuf_error(field, value)
                if error is not None:
                    hint = ""
                    if field == "s" and isinstance(value, str):
                        hint = " (write b%r or tf.compat.as_bytes(%r))" % (value, value)
                    self.findings.append(found(line, col, "NBL011", key, value,
                                               subject="%s.%s" % (access, field),
                                               shown=repr(value),
                                               error="protobuf raises %s%s" % (error, hint)))
                    continue
                value = _attr_for_field(field, value)
            elif field not in SCALAR_FIELDS:
                value = _NOT_LITERAL
            written.append((value, bool_int, path))
        if not written:
            return
        if alias is not None:
            group = alias
        elif isinstance(pm, ast.Attribute):
            group = self._owner_group(*self._owner(pm.value), target)
            self._name_from_add(group, pm.value)   # `...add(name="...").parameter_map[...]`
        else:
            group = self._owner_group("<parameter_map>", self._scope_of("parameter_map"), target)
        if not group.added:
            group.added = True
            group.line, group.col = line, col
            self.groups.append(group)
        for value, bool_int, path in written:
            group.entries.append(_Entry(key, field, value, line, col,
                                        '%s.%s' % (access, field), path, bool_int))

    def _arms_of(self, value_node, base=None):
        """`(expression, path)` per value `value_node` may have (`alternatives`: the arms of
        its conditional expressions), each on an arm of one new branch point added to `base`
        (default: the current path), so the arms are never combined with each other, each
        with everything around them."""
        base = self._path if base is None else base
        alts = alternatives(value_node)
        if len(alts) == 1:
            return [(value_node, base)]
        self._branch_points += 1
        return [(alt, base + ((self._branch_points, arm),)) for arm, alt in enumerate(alts)]

    # --- config calls -----------------------------------------------------------------------

    def visit_Call(self, node):
        name = self._class_name(node)
        if name in _CALLABLES and id(node) not in self._done_calls:
            kind = "plugin" if name == PLUGIN_FUNCTION else "config"
            group = _Group(kind, node.lineno, node.col_offset + 1)
            self._config_call(node, name, group)
            self.groups.append(group)

    def _class_name(self, node):
        """The config class a call makes (through aliases of the class), or another name."""
        func = node.func
        if isinstance(func, ast.Name):
            return self._class_of_name(func.id)
        if isinstance(func, ast.Attribute):
            return func.attr
        return None

    def _config_call(self, node, name, group):
        self._done_calls.add(id(node))
        group.calls.add(id(node))
        group.classes.add(name)
        group.class_pos.setdefault(name, (node.lineno, node.col_offset + 1))
        plugin = name == PLUGIN_FUNCTION
        params = _plugin_args.PARAMS if plugin else (
            _CLASSES[name].params if name in _CLASSES else ())
        check = id(node) not in self._checked_calls
        self._checked_calls.add(id(node))
        arguments, positions = [], {}   # positions: argument -> 1, 2, ... (given by position)
        if any(kw.arg is None for kw in node.keywords):
            group.open_args = True   # **kwargs
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                group.open_args = True
                break   # *args: the positions after it are unknown
            if i >= len(params):
                if check:
                    self._too_many_positional(node, name, params)
                break
            arguments.append((params[i], arg, arg))
            positions[params[i]] = i + 1
        arguments += [(kw.arg, kw.value, kw) for kw in node.keywords if kw.arg is not None]
        if check:
            known = set(params)
            for kw in node.keywords:
                if kw.arg is not None and kw.arg not in known:
                    self._unknown_keyword(kw, name, params)
            arguments = [a for a in arguments if a[0] in known]
        else:
            arguments = [a for a in arguments if a[0] in params]
        if plugin:
            # the function's own checks need every argument at once: `_plugin_entries`
            for arg_name, value, where in arguments:
                group.entries.append(_Entry(arg_name, None, literal_value(value), where.lineno,
                                            where.col_offset + 1,
                                            "%s(%s=...)" % (name, arg_name)))
            return
        if name == "MemoryConfig":
            arguments = _memory_config_seed_form(arguments, positions)
        for arg_name, value, where in arguments:
            if arg_name == "session_config" and name == "NPURunConfig":
                text = _dotted(value)   # its NpuOptimizer(s) come before the estimator's
                if text is not None:
                    group.session_config = (text, self._scope_of(text.partition(".")[0]))
            if isinstance(value, ast.Call):
                inner = self._class_name(value)
                if inner in _CLASSES:
                    if id(value) not in group.calls:
                        self._config_call(value, inner, group)
                    continue
            elif isinstance(value, ast.Name) and value.id in self._followed:
                # a name bound to a config call (`mem = MemoryConfig(...)`): that call's
                # arguments, with their own positions, as the name's scope reads them
                scope = self._scope_of(value.id)
                bound = scope.configs.get(value.id)
                if bound is not None:
                    call, scope = bound[0], bound[1] or scope
                    if id(call) not in group.calls:
                        saved, self._cur = self._cur, scope
                        try:
                            inner = self._class_name(call)
                            if inner in _CLASSES:
                                self._config_call(call, inner, group)
                        finally:
                            self._cur = saved
                    continue
            for value, path in self._arms_of(value, base=()):
                literal = literal_value(value)
                if literal is not _NOT_LITERAL:
                    problems, warnings = [], []
                    _argtypes.check_arg(name, arg_name, literal, problems, warnings=warnings,
                                        position=positions.get(arg_name))
                    if name == "MemoryConfig" and arg_name == _argtypes.MEMORY_THIRD:
                        problems = _argtypes.memory_third_problem(problems, literal,
                                                                  positions.get(arg_name))
                    if check and (problems or warnings):
                        opt = _catalog().by_arg.get(_CLASSES[name].path(arg_name))
                        for diag in problems + warnings:
                            self.findings.append((where.lineno, where.col_offset + 1,
                                                  diag.code, diag.severity, diag.message,
                                                  opt.key if opt is not None else arg_name))
                    if problems:
                        # the constructor refuses it (NPB160): never written, nothing to resolve
                        literal = _NOT_LITERAL
                group.entries.append(_Entry(_CLASSES[name].path(arg_name), None, literal,
                                            where.lineno, where.col_offset + 1,
                                            "%s(%s=...)" % (name, arg_name), path))

    def _unknown_keyword(self, kw, name, params):
        """NBL012: Python's TypeError for a keyword the class (or npu_resource_init) does not
        have, with the schema's hint (`config_schema.keyword_hint`, the classes' too). An
        argument of an older adapter release is NPB108 instead (`argtypes.legacy_argument`)."""
        value = literal_value(kw.value)
        old = _argtypes.legacy_argument(name, kw.arg, "<expression>" if value is _NOT_LITERAL
                                        else value)
        if old is not None:
            self.findings.append((kw.lineno, kw.col_offset + 1, old.code, old.severity,
                                  old.message, kw.arg))
            return
        message = _config_schema.unexpected_keyword(name, kw.arg, params,
                                                    note=" (TypeError at run time)")
        self.findings.append(found(kw.lineno, kw.col_offset + 1, "NBL012", kw.arg, error=message,
                                   fix=_config_schema.keyword_fix(name, kw.arg, params)))

    def _too_many_positional(self, node, name, params):
        arg = node.args[len(params)]
        self.findings.append(found(arg.lineno, arg.col_offset + 1, "NBL012", error=(
            _config_schema.too_many_positional(name, len(node.args), params,
                                               note=" (TypeError at run time)"))))


# Statement type -> its handler (pyflakes' layout: one method per node type).
_HANDLERS = {
    ast.FunctionDef: _Collector._function_def, ast.AsyncFunctionDef: _Collector._function_def,
    ast.ClassDef: _Collector._class_def,
    ast.Import: _Collector._import, ast.ImportFrom: _Collector._import,
    ast.Assign: _Collector._assign, ast.AnnAssign: _Collector._ann_assign,
    ast.AugAssign: _Collector._aug_assign, ast.Delete: _Collector._delete,
    ast.For: _Collector._for, ast.AsyncFor: _Collector._for, ast.While: _Collector._loop,
    ast.With: _Collector._with, ast.AsyncWith: _Collector._with,
    ast.If: _Collector._if,
}
_HANDLERS.update({t: _Collector._try for t in _TRY})
if _MATCH:
    _HANDLERS[_MATCH] = _Collector._match


# Methods of a protobuf message map that return the entry of their key, creating it when
# missing, as `map[KEY]` does: a write through them adds or changes that key
# (`get_or_create(KEY)`; `setdefault(KEY[, default])`, which returns the map's own entry).
# Not `get(KEY)`: it never creates the entry (a missing key gives None, so the write raises
# AttributeError instead of adding a key), and changes a key only when it is already there,
# written by the `[KEY]` lint reads or by code lint does not see. Arguments: (min, max).
_ENTRY_METHODS = {"get_or_create": (1, 1), "setdefault": (1, 2)}


def _map_entry(node):
    """`(map, key node, method)` when `node` is the entry of one key of a map: `map[KEY]`
    (method None) or `map.get_or_create(KEY)` / `map.setdefault(KEY)`; else None."""
    if isinstance(node, ast.Subscript):
        return node.value, node.slice, None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    bounds = _ENTRY_METHODS.get(node.func.attr)
    if bounds is None or node.keywords or not bounds[0] <= len(node.args) <= bounds[1] \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return node.func.value, node.args[0], node.func.attr


def _adds_custom_optimizer(node):
    """`...custom_optimizers.add()` or `.add(name=...)` (a new custom optimizer of a
    ConfigProto), or `RewriterConfig.CustomGraphOptimizer()` / `(name=...)` (one made on
    its own, added later with `custom_optimizers.extend([...])`)."""
    if not isinstance(node, ast.Call) or node.args or any(k.arg != "name" for k in node.keywords):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == _CUSTOM_GRAPH_OPTIMIZER:
        return True
    if not (isinstance(func, ast.Attribute) and func.attr == "add"):
        return False
    holder = func.value
    return (isinstance(holder, ast.Attribute) and holder.attr == _CUSTOM_OPTIMIZERS) or (
        isinstance(holder, ast.Name) and holder.id == _CUSTOM_OPTIMIZERS)


def _memory_config_seed_form(arguments, positions):
    """As `MemoryConfig` reads them (`config_schema.memory_seed_form`): the seed's
    three-argument form `MemoryConfig(a, s, variable_use_1g_huge_page)`, only for a third
    argument given by position (`positions`), never for `memory_optimization_policy=...`."""
    given = {arg_name: literal_value(value) for arg_name, value, _ in arguments}
    if "memory_optimization_policy" in positions and _memory_seed_form(
            given.get("memory_optimization_policy", _NOT_LITERAL),
            given.get("variable_use_1g_huge_page", 0)):
        return [("variable_use_1g_huge_page" if arg_name == "memory_optimization_policy"
                 else arg_name, value, where) for arg_name, value, where in arguments
                if arg_name != "variable_use_1g_huge_page"]
    return arguments


def _call_name(node):
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None



def close_names(name, candidates, n=3, cutoff=0.6):
    """`npu_bridge.ge.catalog.close_names` (case-insensitive "did you mean" of explain and
    NBL012), imported when first needed: importing lint does not load the catalog."""
    from npu_bridge.ge import catalog   # pylint: disable=import-outside-toplevel
    return catalog.close_names(name, candidates, n=n, cutoff=cutoff)

