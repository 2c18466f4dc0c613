//! The files of one lint run seen as one program: which classes are GMC components, the
//! binding list each makes (following helpers `BindReplicationData_Implementation` calls), and
//! the prediction and simulation paths as GMC runs them (the hooks in order, with the
//! functions they call in the same files followed at their call sites).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub use super::bind_calls::is_bind_call;
use super::gmc::{self, Arg};
use super::syntax::{ClassDecl, CondKind, EventKind, FileSyntax, Func, Pos};
use crate::model::binding::{
    BoundType, CombineMode, InterpolationFunction, PredictionMode, SimulationMode,
};

/// Calls are followed at most this deep.
const MAX_CALL_DEPTH: usize = 16;
/// A path stops growing here (a file of helpers calling each other many times over).
const MAX_STEPS: usize = 200_000;

/// The call sites that led to a step, innermost first.
#[derive(Debug)]
pub struct CallSite {
    pub func: usize,
    pub event: usize,
    pub parent: Option<Arc<CallSite>>,
}

/// One event on a path, with how it was reached.
#[derive(Debug, Clone)]
pub struct Step {
    pub func: usize,
    pub event: usize,
    pub via: Option<Arc<CallSite>>,
}

/// One `Bind*` call.
#[derive(Debug, Clone)]
pub struct BindingRow {
    /// The member as written (`this->` removed).
    pub member: String,
    pub bind: String,
    pub ty: BoundType,
    pub prediction: Arg<PredictionMode>,
    pub combine: Arg<CombineMode>,
    pub simulation: Arg<SimulationMode>,
    pub interpolation: Arg<InterpolationFunction>,
    pub file: usize,
    pub pos: Pos,
    /// What the call went through (`MovementComponent` for `MovementComponent->BindInt`).
    pub through: Option<String>,
    /// The condition it is made under (around it, around a helper's call, or an early return
    /// before it), if any: the binding table marks it.
    pub condition: Option<String>,
    /// Made in a loop (around it or around a helper's call): one row for as many bindings as
    /// the loop runs, a count the lint cannot know, so the totals leave it out.
    pub in_loop: bool,
    /// The class declaring the member when it is reached through a pointer (`Owner->Health`:
    /// `Owner`'s class), shown as `Class::Health`; `None` for the component's own members.
    pub declared_by: Option<String>,
    /// What the value measures, from its type and what is written to it (its bits); set
    /// once the component's rows are known (`magnitude::decide`, called by the lint run on
    /// every component).
    pub scale: Option<super::scale::Measure>,
    pub step: Step,
}

impl BindingRow {
    /// The member's own name: the last part of `A.B` / `A->B`.
    pub fn member_name(&self) -> &str {
        self.member
            .rsplit(['.', '>'])
            .next()
            .unwrap_or(&self.member)
    }
}

/// A GMC component found in the files.
#[derive(Debug, Clone)]
pub struct Component {
    pub class: String,
    pub file: usize,
    pub pos: Pos,
    /// Binds through a pointer to a movement component (an ability component).
    pub through_pointer: bool,
    pub bindings: Vec<BindingRow>,
    /// Position of the `Super::BindReplicationData_Implementation` call in the binding list
    /// (how many bindings came before it), if there is one.
    pub super_at: Option<(usize, Pos)>,
    /// The GMC class the component derives from (`UGMC_OrganicMovementCmp`, …) and how many
    /// of `bindings` come before its `Super::BindReplicationData` call binds GMC's own values.
    pub gmc_parent: Option<(String, usize)>,
    /// The `BindReplicationData_Implementation` definitions.
    pub bind_funcs: Vec<usize>,
}

pub struct Program {
    pub funcs: Vec<Func>,
    pub classes: Vec<ClassDecl>,
    pub rpcs: HashSet<String>,
    /// The files' names (for citing a line of another file), set by the caller.
    pub file_names: Vec<String>,
    by_member: HashMap<(String, String), Vec<usize>>,
    free: HashMap<String, Vec<usize>>,
    class_idx: HashMap<String, usize>,
    /// Members of classes whose declaration was not read, inferred from what their member
    /// functions assign (see [`super::inferred::inferred_members`]).
    inferred: HashMap<String, Vec<(String, String)>>,
    /// Members a read declaration lacks, inferred the same way
    /// ([`super::inferred::undeclared_members`]).
    undeclared: HashMap<String, Vec<(String, String)>>,
    /// Names of the functions that make bindings ([`super::bind_calls::binding_function_names`]).
    binding_fns: HashSet<String>,
}

impl Program {
    pub fn new(files: Vec<FileSyntax>, rpcs: HashSet<String>) -> Program {
        let mut funcs = Vec::new();
        let mut classes = Vec::new();
        for f in files {
            funcs.extend(f.funcs);
            classes.extend(f.classes);
        }
        let mut by_member: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut free: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, f) in funcs.iter().enumerate() {
            match &f.class {
                Some(c) => by_member
                    .entry((c.clone(), f.name.clone()))
                    .or_default()
                    .push(i),
                None => free.entry(f.name.clone()).or_default().push(i),
            }
        }
        let mut class_idx = HashMap::new();
        for (i, c) in classes.iter().enumerate() {
            class_idx.entry(c.name.clone()).or_insert(i);
        }
        let inferred = super::inferred::inferred_members(&funcs, &class_idx);
        let undeclared = super::inferred::undeclared_members(&funcs, &classes, &class_idx);
        let binding_fns = super::bind_calls::binding_function_names(&funcs);
        Program {
            funcs,
            classes,
            rpcs,
            file_names: Vec::new(),
            by_member,
            free,
            class_idx,
            inferred,
            undeclared,
            binding_fns,
        }
    }

    /// Whether `class` (or a base in the files) has a data member `name`.
    pub fn has_field(&self, class: &str, name: &str) -> bool {
        self.chain(class).iter().any(|c| match self.class(c) {
            Some(d) => {
                d.fields.iter().any(|(n, _)| n == name)
                    || self
                        .undeclared
                        .get(c)
                        .is_some_and(|v| v.iter().any(|(n, _)| n == name))
            }
            None => self
                .inferred
                .get(c)
                .is_some_and(|v| v.iter().any(|(n, _)| n == name)),
        })
    }

    /// Whether a function so named makes bindings (itself or through what it calls).
    pub fn makes_bindings_by_name(&self, name: &str) -> bool {
        self.binding_fns.contains(name)
    }

    /// Whether `class`'s members are inferred (its declaration was not read).
    pub fn members_inferred(&self, class: &str) -> bool {
        self.class(class).is_none() && self.inferred.contains_key(class)
    }

    pub fn class(&self, name: &str) -> Option<&ClassDecl> {
        self.class_idx.get(name).map(|i| &self.classes[*i])
    }

    /// `class` and its bases declared in the files, nearest first.
    pub fn chain(&self, class: &str) -> Vec<String> {
        let mut out = vec![class.to_string()];
        let mut i = 0;
        while i < out.len() && out.len() < 16 {
            if let Some(c) = self.class(&out[i]) {
                for b in &c.bases {
                    let b = b.rsplit("::").next().unwrap_or(b).to_string();
                    if !out.contains(&b) {
                        out.push(b);
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// Data members of `class` and of its bases declared in the files.
    /// A class whose declaration was not read has the members its functions assign.
    pub fn fields(&self, class: &str) -> Vec<(String, String)> {
        self.chain(class)
            .iter()
            .flat_map(|c| match self.class(c) {
                Some(d) => {
                    let mut f = d.fields.clone();
                    f.extend(self.undeclared.get(c).into_iter().flatten().cloned());
                    f
                }
                None => self.inferred.get(c).cloned().unwrap_or_default(),
            })
            .collect()
    }

    /// The definitions of `name` (or `name_Implementation`) for `class`, looked up along its
    /// chain (from `skip` bases on: 1 for `Super::`).
    pub fn lookup(&self, class: Option<&str>, name: &str, skip: usize) -> Vec<usize> {
        let names = [name.to_string(), format!("{name}_Implementation")];
        if let Some(c) = class {
            for k in self.chain(c).into_iter().skip(skip) {
                for n in &names {
                    if let Some(v) = self.by_member.get(&(k.clone(), n.clone())) {
                        return v.clone();
                    }
                }
            }
        }
        if skip == 0 {
            for n in &names {
                if let Some(v) = self.free.get(n) {
                    return v.clone();
                }
            }
        }
        Vec::new()
    }

    /// The functions a call event leads to, if it stays in the files.
    fn callee(&self, func: usize, event: usize) -> Vec<usize> {
        let f = &self.funcs[func];
        let EventKind::Call {
            path,
            name,
            receiver,
            ..
        } = &f.events[event].kind
        else {
            return Vec::new();
        };
        let class = f.class.as_deref();
        if let Some(r) = receiver {
            return self.binding_call_through(func, r, name);
        }
        // A call named like GMC's bind functions is GMC's, unless the class defines it (its
        // own helper that forwards to the movement component).
        if BoundType::from_gmc_function(name).is_some() && !path.contains("::") {
            return self.lookup(class, name, 0);
        }
        if BoundType::from_gmc_function(name).is_some() {
            return Vec::new();
        }
        match path.rsplit_once("::") {
            None => self.lookup(class, name, 0),
            Some((scope, _)) if scope == "Super" || scope.ends_with("::Super") => {
                self.lookup(class, name, 1)
            }
            Some((scope, _)) => {
                let scope = scope.rsplit("::").next().unwrap_or(scope);
                if class.is_some_and(|c| self.chain(c).iter().any(|k| k == scope)) {
                    self.lookup(Some(scope), name, 0)
                } else if self.makes_bindings_by_name(name) {
                    // A namespace's or another class's static binding helper
                    // (`MoveBindings::BindAll(this)`).
                    self.lookup(Some(scope), name, 0)
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Every event of `root` in order, calls into the files' functions followed where they
    /// are made.
    pub fn flow(&self, root: usize) -> Vec<Step> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        self.flow_into(root, None, &mut stack, &mut out);
        out
    }

    fn flow_into(
        &self,
        func: usize,
        via: Option<Arc<CallSite>>,
        stack: &mut Vec<usize>,
        out: &mut Vec<Step>,
    ) {
        for (i, _) in self.funcs[func].events.iter().enumerate() {
            if out.len() >= MAX_STEPS {
                return;
            }
            out.push(Step {
                func,
                event: i,
                via: via.clone(),
            });
            if stack.len() >= MAX_CALL_DEPTH {
                continue;
            }
            for callee in self.callee(func, i) {
                if stack.contains(&callee) {
                    continue;
                }
                let site = Arc::new(CallSite {
                    func,
                    event: i,
                    parent: via.clone(),
                });
                stack.push(callee);
                self.flow_into(callee, Some(site), stack, out);
                stack.pop();
            }
        }
    }

    /// The conditions a step sits under: its own, then each call site's, innermost first,
    /// as (kind, text, where).
    pub fn conds(&self, s: &Step) -> Vec<(CondKind, String, usize, Pos)> {
        let mut out = Vec::new();
        let f = &self.funcs[s.func];
        for c in f.conds_of(f.events[s.event].cond) {
            out.push((c.kind, c.text.clone(), s.func, c.pos));
        }
        let mut at = s.via.clone();
        while let Some(site) = at {
            let f = &self.funcs[site.func];
            for c in f.conds_of(f.events[site.event].cond) {
                out.push((c.kind, c.text.clone(), site.func, c.pos));
            }
            at = site.parent.clone();
            if out.len() > 256 {
                break;
            }
        }
        out
    }

    /// The first condition (not a loop, not a test of a local the member is reached through)
    /// a binding is made under, or an early return before it.
    fn layout_condition(&self, s: &Step, member: &str) -> Option<String> {
        let root = root_of(member);
        let local = self.funcs[s.func].locals.contains(root);
        let mut conds = self.conds(s);
        conds.extend(self.early_returns(s));
        conds
            .into_iter()
            .filter(|(k, ..)| *k != CondKind::Loop)
            .filter(|(_, t, func, _)| !self.tests_only_receivers(*func, t))
            .find(|(_, t, ..)| !(local && gmc::words(t).any(|w| w == root)))
            .map(|(_, t, ..)| t)
    }

    /// The conditions of `return`s before a step (in its function, and before each call site
    /// in the callers): what follows runs only when they do not hold.
    pub fn early_returns(&self, s: &Step) -> Vec<(CondKind, String, usize, Pos)> {
        let mut out = Vec::new();
        let mut sites = vec![(s.func, s.event)];
        let mut at = s.via.clone();
        while let Some(site) = at {
            sites.push((site.func, site.event));
            at = site.parent.clone();
        }
        for (func, upto) in sites {
            let f = &self.funcs[func];
            for e in f.events[..upto]
                .iter()
                .filter(|e| e.kind == EventKind::Return)
            {
                if let Some(c) = f.conds_of(e.cond).next() {
                    out.push((c.kind, c.text.clone(), func, c.pos));
                }
            }
        }
        out
    }

    /// The classes that are GMC components: they define a GMC hook, derive from a GMC class or
    /// a component, or bind through a pointer.
    pub fn component_classes(&self) -> Vec<String> {
        let mut set: Vec<String> = Vec::new();
        let add = |set: &mut Vec<String>, c: &str| {
            if !set.iter().any(|x| x == c) {
                set.push(c.to_string());
            }
        };
        for f in &self.funcs {
            if let Some(c) = &f.class
                && gmc::is_component_marker(&f.name)
            {
                add(&mut set, c);
            }
        }
        for c in &self.classes {
            if self.chain(&c.name)[1..]
                .iter()
                .any(|b| gmc::GMC_CLASSES.contains(&super::units::base_name(b)) || set.contains(b))
            {
                add(&mut set, &c.name);
            }
        }
        for f in &self.funcs {
            if let Some(c) = &f.class
                && f.events.iter().any(|e| is_bind_call(&e.kind, true))
            {
                add(&mut set, c);
            }
        }
        set
    }

    /// Where a class is shown: its declaration, else its first function.
    pub fn class_pos(&self, class: &str) -> (usize, Pos) {
        if let Some(c) = self.class(class) {
            return (c.file, c.pos);
        }
        self.funcs
            .iter()
            .find(|f| f.class.as_deref() == Some(class))
            .map_or((0, Pos::default()), |f| (f.file, f.pos))
    }

    /// A `Bind*` call event as a binding row.
    pub fn binding_row(&self, s: &Step) -> Option<BindingRow> {
        let f = &self.funcs[s.func];
        let e = &f.events[s.event];
        let EventKind::Call {
            name,
            receiver,
            args,
            ..
        } = &e.kind
        else {
            return None;
        };
        let ty = BoundType::from_gmc_function(name)?;
        if receiver.is_none() && !self.callee(s.func, s.event).is_empty() {
            // The class's own helper: its forwarded call is the binding.
            return None;
        }
        let arg = |i: usize| self.resolve_param(s, args.get(i).map_or("", String::as_str));
        let first = self.resolve_in(s, args.first().map_or("", String::as_str));
        let member = bound_member(&first.text);
        if self.funcs[first.func]
            .params
            .iter()
            .any(|p| root_of(&member) == p)
        {
            // A parameter the call site did not give (a helper no one here calls).
            return None;
        }
        let condition = self.layout_condition(s, &member);
        // A pointer that turns out to be the component itself (`Comp` given `this`) is no
        // pointer: the binding is the component's own.
        let through = receiver
            .as_deref()
            .map(|r| bound_member(&self.resolve_param(s, r)))
            .filter(|r| !r.is_empty() && r != "this");
        let in_loop = self.conds(s).iter().any(|(k, ..)| *k == CondKind::Loop);
        let declared_by = self
            .declaring_class(root_step_func(s), &member)
            .or(first.declared_by)
            .filter(|_| member.contains("->"));
        Some(BindingRow {
            member,
            bind: name.clone(),
            ty,
            prediction: gmc::prediction(&arg(1)),
            combine: gmc::combine(&arg(2)),
            simulation: gmc::simulation(&arg(3)),
            interpolation: gmc::interpolation(&arg(4)),
            file: f.file,
            pos: e.pos,
            through,
            condition,
            in_loop,
            declared_by,
            scale: None,
            step: s.clone(),
        })
    }

    /// `text` as the outermost caller names it, through nested helpers: a leading parameter
    /// of the step's function replaced by the argument its call site gave (`Value` in a
    /// helper called as `BindHelper(Stamina)` → `Stamina`; `Comp->X` in one called with `this`
    /// → `X`), and a member of a function called through a pointer prefixed with that pointer
    /// (`Health` in `Attributes->BindAll(this)` → `Attributes->Health`). A local stays.
    fn resolve_param(&self, s: &Step, text: &str) -> String {
        self.resolve_in(s, text).text
    }

    /// [`Self::resolve_param`], with the function whose names the result is in and the class
    /// whose member was reached through a pointer.
    fn resolve_in(&self, s: &Step, text: &str) -> Resolved {
        let mut text = text.trim().to_string();
        let mut func = s.func;
        let mut site = s.via.clone();
        let mut declared_by = None;
        for _ in 0..MAX_CALL_DEPTH {
            let Some(cs) = site else { break };
            let stripped = bound_member(&text);
            let root = root_of(&stripped).to_string();
            let EventKind::Call { args, receiver, .. } = &self.funcs[cs.func].events[cs.event].kind
            else {
                break;
            };
            let f = &self.funcs[func];
            if let Some(i) = f.params.iter().position(|p| *p == root) {
                let Some(given) = args.get(i) else { break };
                text = format!("{}{}", given.trim(), &stripped[root.len()..]);
            } else if f.locals.contains(&root) {
                break;
            } else if let Some(r) = receiver.as_deref()
                && f.class.as_deref().is_some_and(|c| self.has_field(c, &root))
            {
                declared_by = declared_by.or_else(|| f.class.clone());
                text = format!("{r}->{stripped}");
            } else {
                text = stripped;
            }
            func = cs.func;
            site = cs.parent.clone();
        }
        Resolved {
            text,
            func,
            declared_by,
        }
    }

    /// A `Bind*` call of a parameter of its function: a helper forwarding a binding, which is
    /// made (and reported) where the helper is called.
    pub fn binds_parameter(&self, func: usize, event: usize) -> bool {
        let f = &self.funcs[func];
        let EventKind::Call { args, .. } = &f.events[event].kind else {
            return false;
        };
        is_bind_call(&f.events[event].kind, true)
            && args.first().is_some_and(|a| {
                let m = bound_member(a);
                f.params.iter().any(|p| root_of(&m) == p)
            })
    }

    /// For a call to the class's own binding helper: what its forwarded `Bind*` call goes
    /// through (`Some(None)`: the component itself, `Some(Some("MovementComponent"))`: a
    /// pointer). `None` when the call is not to such a helper.
    pub fn helper_binding(&self, func: usize, event: usize) -> Option<Option<String>> {
        let EventKind::Call { receiver: None, .. } = &self.funcs[func].events[event].kind else {
            return None;
        };
        self.callee(func, event).into_iter().find_map(|h| {
            self.flow(h)
                .into_iter()
                .find_map(|s| match &self.funcs[s.func].events[s.event].kind {
                    EventKind::Call { receiver, .. } if self.binds_parameter(s.func, s.event) => {
                        Some(receiver.clone())
                    }
                    _ => None,
                })
        })
    }

    /// The components, each with its binding list.
    pub fn components(&self) -> Vec<Component> {
        let mut out = Vec::new();
        let mut reached: HashSet<(usize, usize)> = HashSet::new();
        for class in self.component_classes() {
            let (file, pos) = self.class_pos(&class);
            let bind_funcs = self
                .by_member
                .get(&(
                    class.clone(),
                    format!("{}_Implementation", gmc::BIND_FUNCTION),
                ))
                .cloned()
                .unwrap_or_default();
            let mut bindings = Vec::new();
            let mut super_at = None;
            let mut gmc_parent_at = None;
            for &root in &bind_funcs {
                for s in self.flow(root) {
                    reached.insert((s.func, s.event));
                    if let Some(row) = self.binding_row(&s) {
                        bindings.push(row);
                        continue;
                    }
                    let kind = &self.funcs[s.func].events[s.event].kind;
                    if !is_super_call(kind, gmc::BIND_FUNCTION) {
                        continue;
                    }
                    if s.func == root && super_at.is_none() {
                        super_at = Some((bindings.len(), self.funcs[s.func].events[s.event].pos));
                    }
                    // A `Super::` call no class in the files answers: GMC's own parent binds
                    // its values here.
                    if gmc_parent_at.is_none() && self.callee(s.func, s.event).is_empty() {
                        gmc_parent_at = Some(bindings.len());
                    }
                }
            }
            let gmc_parent = self
                .chain(&class)
                .into_iter()
                .find(|c| gmc::GMC_CLASSES.contains(&super::units::base_name(c)))
                .map(|c| super::units::base_name(&c).to_string())
                .zip(gmc_parent_at);
            out.push(Component {
                class,
                file,
                pos,
                through_pointer: false,
                bindings,
                super_at,
                gmc_parent,
                bind_funcs,
            });
        }
        // Bindings made through a pointer in functions no BindReplicationData reaches: the
        // ability component's own table.
        for c in &mut out {
            if !c.bind_funcs.is_empty() {
                continue;
            }
            let mut seen = HashSet::new();
            for (fi, f) in self.funcs.iter().enumerate() {
                if f.class.as_deref() != Some(c.class.as_str()) {
                    continue;
                }
                // Each function as a root, so a helper's forwarded call is resolved from its
                // callers (as a root itself it binds a parameter, which gives no row).
                for s in self.flow(fi) {
                    let e = &self.funcs[s.func].events[s.event];
                    if !is_bind_call(&e.kind, true) || reached.contains(&(s.func, s.event)) {
                        continue;
                    }
                    if let Some(row) = self.binding_row(&s)
                        && seen.insert((s.func, s.event, row.member.clone()))
                    {
                        c.bindings.push(row);
                        c.through_pointer = true;
                    }
                }
            }
        }
        out
    }

    /// The prediction path of `class`: its `GenPredictionTick` (code before `Super::` first),
    /// then each hook in the order `PerformMovement` calls them, then the rest of
    /// `GenPredictionTick`.
    pub fn prediction_path(&self, class: &str) -> Vec<Step> {
        let tick = self.lookup(Some(class), gmc::PREDICTION_TICK, 0);
        let mut hooks = Vec::new();
        for h in gmc::PREDICTION_HOOKS {
            for f in self.lookup(Some(class), h, 0) {
                // Hooks called from another hook are followed there, not again here.
                hooks.extend(self.flow(f));
            }
        }
        let Some(&t) = tick.first() else {
            return dedup_hooks(hooks);
        };
        let flow = self.flow(t);
        let split = flow
            .iter()
            .position(|s| {
                s.func == t
                    && is_super_call(&self.funcs[t].events[s.event].kind, gmc::PREDICTION_TICK)
            })
            .map_or(0, |i| i + 1);
        let mut out: Vec<Step> = flow[..split].to_vec();
        out.extend(hooks);
        out.extend(flow[split..].iter().cloned());
        dedup_hooks(out)
    }

    /// The simulated proxy's path of `class`.
    pub fn simulation_path(&self, class: &str) -> Vec<Step> {
        let mut out = Vec::new();
        for h in gmc::SIMULATION_HOOKS {
            for f in self.lookup(Some(class), h, 0) {
                out.extend(self.flow(f));
            }
        }
        out
    }

    /// The functions (with everything they call) named `name` in `class`'s chain.
    pub fn path_of(&self, class: &str, name: &str) -> Vec<Step> {
        self.lookup(Some(class), name, 0)
            .into_iter()
            .flat_map(|f| self.flow(f))
            .collect()
    }
}

/// A bound path as the outermost caller names it ([`Program::resolve_param`]).
struct Resolved {
    text: String,
    /// The function whose names `text` is in.
    func: usize,
    /// The class of the function whose member was reached through a pointer, if one was.
    declared_by: Option<String>,
}

/// The function a step's outermost call began in (the step's own when it was not called).
fn root_step_func(s: &Step) -> usize {
    let mut func = s.func;
    let mut at = s.via.clone();
    while let Some(site) = at {
        func = site.func;
        at = site.parent.clone();
    }
    func
}

/// A hook reached both as a root and from another hook (a user's `MovementUpdate` calling
/// `PhysicsCustom`, say) runs once per move: keep its first appearance.
fn dedup_hooks(steps: Vec<Step>) -> Vec<Step> {
    let mut seen = HashSet::new();
    steps
        .into_iter()
        .filter(|s| {
            let key = (s.func, s.event);
            seen.insert(key)
        })
        .collect()
}

/// `Super::name_Implementation(...)` or `Base::name_Implementation(...)`.
pub fn is_super_call(k: &EventKind, name: &str) -> bool {
    matches!(k, EventKind::Call { path, name: n, .. }
        if path.contains("::") && gmc::hook_base(n) == name)
}

/// The member a `Bind*` argument names: `this->`, casts (`reinterpret_cast<uint8&>(Mode)`,
/// `static_cast<…>(…)`, `(uint8&)Mode`), `*` and `&` and parentheses removed.
pub fn bound_member(arg: &str) -> String {
    let mut t: String = arg.split_whitespace().collect();
    for _ in 0..8 {
        let before = t.clone();
        t = t.trim_start_matches("this->").to_string();
        if let Some(rest) = t.strip_prefix('*').or_else(|| t.strip_prefix('&')) {
            t = rest.to_string();
        }
        for cast in [
            "static_cast<",
            "reinterpret_cast<",
            "const_cast<",
            "StaticCast<",
        ] {
            if t.starts_with(cast)
                && let Some(open) = t.find(">(")
                && t.ends_with(')')
            {
                t = t[open + 2..t.len() - 1].to_string();
            }
        }
        // `(uint8&)Mode` and `(Mode)`.
        if t.starts_with('(')
            && let Some(close) = t.find(')')
        {
            let (inner, after) = (&t[1..close], &t[close + 1..]);
            if after.is_empty() {
                t = inner.to_string();
            } else if after
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '*' || c == '&')
                && !inner.contains(['(', ','])
            {
                t = after.to_string();
            }
        }
        if t == before {
            break;
        }
    }
    t
}

/// The first name of a member path (`Input` of `Input.bJump`, `Data` of `Data->X`).
pub fn root_of(member: &str) -> &str {
    member.split(['.', '-', '[']).next().unwrap_or(member)
}
