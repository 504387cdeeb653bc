//! Players' names: [`Aliases`] (the spellings of one player mapped to the name the history
//! keeps) and [`likely_duplicates`], the names of a history that look like one player written
//! several ways, for a user to turn into an alias file.
//!
//! Names are compared as the history keeps them: in Unicode normalisation form C
//! ([`canonical_name`]), otherwise exactly (case, accents and spaces count). An alias file is
//! how a user says that two such names are one player.

use rustc_hash::{FxHashMap, FxHashSet};

/// A player's id, as the history numbers players ([`crate::history::PlayerId`]).
type PlayerId = u32;

/// A player's name as the history keeps it: Unicode normalisation form C, so that the same
/// name typed as composed or decomposed characters (`é` or `e` + `◌́`) is one player. ASCII
/// names, the usual case, are returned as they are without work.
pub fn canonical_name(name: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
    if name.is_ascii() || is_nfc_quick(name.chars()) == IsNormalized::Yes {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(name.nfc().collect())
    }
}

/// Spellings of players mapped to the name each player is kept under.
#[derive(Clone, Debug, Default)]
pub struct Aliases {
    map: FxHashMap<Box<str>, Box<str>>,
}

/// One line of an alias file: the alias, the player, and where it was given (for messages).
pub struct AliasLine {
    /// The spelling to replace.
    pub alias: String,
    /// The name to keep.
    pub player: String,
    /// Where the line is (a line number).
    pub line: u64,
}

impl Aliases {
    /// The aliases of `lines`, each chain (`a` to `b`, `b` to `c`) followed to its end so
    /// that every alias maps to a name that is no alias. Refused, with the lines named: an
    /// alias given twice for two players, and a cycle (`a` to `b` and `b` to `a`). A line
    /// that maps a name to itself is allowed and changes nothing.
    pub fn new(lines: &[AliasLine]) -> Result<Self, String> {
        let mut direct: FxHashMap<Box<str>, (Box<str>, u64)> = FxHashMap::default();
        for l in lines {
            let alias: Box<str> = canonical_name(&l.alias).into();
            let player: Box<str> = canonical_name(&l.player).into();
            if alias == player {
                continue;
            }
            if let Some((other, at)) = direct.get(&alias) {
                if *other != player {
                    return Err(format!(
                        "line {}: `{alias}` is an alias of `{other}` (line {at}) and of \
                         `{player}`",
                        l.line
                    ));
                }
                continue;
            }
            direct.insert(alias, (player, l.line));
        }
        let mut map = FxHashMap::default();
        for (alias, (player, line)) in &direct {
            let mut at = player;
            let mut steps = 0usize;
            while let Some((next, _)) = direct.get(at) {
                steps += 1;
                if next == alias || steps > direct.len() {
                    return Err(format!(
                        "line {line}: the aliases of `{alias}` go round in a circle (through \
                         `{player}`)"
                    ));
                }
                at = next;
            }
            map.insert(alias.clone(), at.clone());
        }
        Ok(Self { map })
    }

    /// No aliases.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// How many spellings are aliases.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The name a player is kept under: `name`'s player if it is an alias, else `name`
    /// itself. `name` must be in normalisation form C ([`canonical_name`]), as the history
    /// keeps names.
    #[inline]
    pub fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        if self.map.is_empty() {
            return name;
        }
        self.map.get(name).map_or(name, |p| p)
    }
}

/// Why two names look like one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Likeness {
    /// The same letters once case, accents, punctuation and spacing are set aside
    /// (`Polgár, Judit` and `POLGAR Judit`).
    Spelling,
    /// The same words in another order (`Garry Kasparov` and `Kasparov, Garry`).
    WordOrder,
    /// The same surname, the given names written as initials or cut short (`Kasparov, G.`,
    /// `Karpov,Ana`) of the other's (`Kasparov, Garry`, `Karpov, Anatoly`).
    Initials,
    /// One edit apart (a letter added, dropped, changed or two swapped) in the surname of
    /// names of six letters or more written as two words or more, the given names the same
    /// (`Kasparow, Garry` and `Kasparov, Garry`): only when asked for
    /// ([`likely_duplicates`]'s `one_edit`), as two such names are as often two players
    /// (`Joao Sousa` and `Joao Souza`). Never across given names written out
    /// (`Tim Gullikson` and `Tom Gullikson` are twins), nor between handles.
    OneEdit,
}

impl Likeness {
    /// The reason as a report says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Likeness::Spelling => "case, accents or punctuation",
            Likeness::WordOrder => "word order",
            Likeness::Initials => "initials",
            Likeness::OneEdit => "one edit apart",
        }
    }
}

/// A name that looks like another player's: `alias` would be written as `player` (the
/// spelling of its group with the most contests).
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// The spelling to replace.
    pub alias: PlayerId,
    /// The spelling to keep.
    pub player: PlayerId,
    /// The strongest reason that links the alias into the player's group.
    pub why: Likeness,
    /// Further players the alias would match as well (an initial shared by several full
    /// names): the user must choose.
    pub ambiguous_with: Vec<PlayerId>,
}

/// The letters of a name without case, accents, punctuation or repeated spaces.
pub fn fold(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut out = String::with_capacity(name.len());
    let mut space = true;
    for c in name.nfkd().filter(|c| !is_combining_mark(*c)) {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            space = false;
        } else if !space {
            out.push(' ');
            space = true;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// A name's surname and given names, folded: before and after the first comma, else the
/// last word and the words before it.
fn parts(name: &str) -> (String, Vec<String>) {
    let (surname, given) = match name.split_once(',') {
        Some((s, g)) => (fold(s), fold(g)),
        None => {
            let f = fold(name);
            match f.rsplit_once(' ') {
                Some((g, s)) => (s.to_string(), g.to_string()),
                None => (f, String::new()),
            }
        }
    };
    (
        surname,
        given
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect(),
    )
}

/// Whether two folded names are at most one edit apart (insertion, deletion, substitution or
/// a swap of two neighbours): their optimal string alignment distance is 1 at most.
fn one_edit(a: &str, b: &str) -> bool {
    strsim::osa_distance(a, b) <= 1
}

/// Groups ids by key; keys met by one id only are dropped.
fn groups<K: std::hash::Hash + Eq>(
    keys: impl Iterator<Item = (K, PlayerId)>,
) -> Vec<Vec<PlayerId>> {
    let mut by: FxHashMap<K, Vec<PlayerId>> = FxHashMap::default();
    for (k, p) in keys {
        by.entry(k).or_default().push(p);
    }
    let mut out: Vec<Vec<PlayerId>> = by.into_values().filter(|g| g.len() > 1).collect();
    out.sort_unstable();
    out
}

struct Union {
    parent: Vec<PlayerId>,
    why: Vec<Option<Likeness>>,
}

impl Union {
    fn find(&mut self, mut p: PlayerId) -> PlayerId {
        while self.parent[p as usize] != p {
            let up = self.parent[p as usize];
            self.parent[p as usize] = self.parent[up as usize];
            p = up;
        }
        p
    }
    fn join(&mut self, a: PlayerId, b: PlayerId, why: Likeness) {
        for p in [a, b] {
            let w = &mut self.why[p as usize];
            *w = Some(w.map_or(why, |old| old.min(why)));
        }
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
}

/// Names with one surname and first initial compared as abbreviations of each other at most
/// (a group is compared pair by pair).
const ABBREVIATION_GROUP_LIMIT: usize = 1_024;

/// A given name cut short to at most this many letters counts as an abbreviation.
const ABBREVIATION_LETTERS: usize = 3;

/// Edit-distance candidates looked at per shared key at most (a key shared by thousands of
/// short handles says nothing).
const BUCKET_LIMIT: usize = 64;

/// The names of `names` (by id) that look like one player written several ways, each with
/// the spelling of its group to keep: one whose given names are written out rather than as
/// initials, of those the one with the most contests (`contests`, by id), then the longest,
/// then the first. Names with no letter or digit are left out. Sorted by the
/// groups' contests, most first, then by alias.
///
/// Only spellings (case, accents, punctuation, word order) and abbreviations (initials,
/// given names cut short) link two names: two names whose given names are written out and
/// differ are two people (twins, siblings), whatever their likeness. With `one_edit`, names
/// one edit apart in the surname alone are suggested too ([`Likeness::OneEdit`]).
pub fn likely_duplicates(names: &[String], contests: &[u32], one_edit: bool) -> Vec<Suggestion> {
    let mut names = Names::new(names, contests);
    let mut u = Union {
        parent: (0..names.len() as PlayerId).collect(),
        why: vec![None; names.len()],
    };
    names.link_spellings(&mut u);
    let ambiguous = names.link_abbreviations(&mut u);
    let edits = if one_edit {
        names.one_edit_pairs()
    } else {
        Vec::new()
    };
    let kept = names.kept_spellings(&mut u);
    let mut out = names.group_suggestions(&mut u, &kept);
    names.edit_suggestions(&mut u, &kept.keep, &edits, &mut out);
    names.ambiguous_suggestions(&mut u, &kept.keep, ambiguous, &mut out);
    // One line per alias (an alias file refuses two): its first, the group's link before a
    // link between groups.
    let mut seen: FxHashSet<PlayerId> = FxHashSet::default();
    out.retain(|(_, s)| seen.insert(s.alias));
    out.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.player.cmp(&b.1.player))
            .then(a.1.alias.cmp(&b.1.alias))
    });
    out.into_iter().map(|(_, s)| s).collect()
}

/// The names [`likely_duplicates`] compares, by id: as given, folded, and split into
/// surname and given names, with their contests and which of them abbreviate another.
struct Names<'a> {
    names: &'a [String],
    contests: &'a [u32],
    folded: Vec<String>,
    split: Vec<(String, Vec<String>)>,
    /// Whether a name abbreviates another's given names ([`Names::link_abbreviations`]).
    abbreviation: Vec<bool>,
}

/// The spelling each group keeps (by the group's root) and the group's contests.
struct Kept {
    keep: FxHashMap<PlayerId, PlayerId>,
    total: FxHashMap<PlayerId, u64>,
}

/// Names that abbreviate several full names of different groups, with those names.
type Ambiguous = FxHashMap<PlayerId, Vec<PlayerId>>;

/// Suggestions with their groups' contests, to sort by.
type Suggestions = Vec<(u64, Suggestion)>;

impl<'a> Names<'a> {
    fn new(names: &'a [String], contests: &'a [u32]) -> Self {
        Self {
            names,
            contests,
            folded: names.iter().map(|s| fold(s)).collect(),
            split: names.iter().map(|s| parts(s)).collect(),
            abbreviation: vec![false; names.len()],
        }
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    /// The ids of the names with a letter or digit.
    fn ids(&self) -> impl Iterator<Item = PlayerId> + '_ {
        (0..self.len() as PlayerId).filter(|&p| !self.folded[p as usize].is_empty())
    }

    /// The folded name's words, sorted.
    fn sorted_words(&self, p: PlayerId) -> String {
        let mut w: Vec<&str> = self.folded[p as usize].split(' ').collect();
        w.sort_unstable();
        w.join(" ")
    }

    /// A name written as words (with a space or a comma), not a handle.
    fn worded(&self, p: PlayerId) -> bool {
        self.names[p as usize].contains(|c: char| c.is_whitespace() || c == ',')
    }

    /// A person's name: worded, with one comma at most and none of the marks of a team, a
    /// consultation game or an assisted player (`Kasparov, Garry:Crumiller, Jon`, `Anand,V /
    /// FRITZ7`).
    fn personal(&self, p: PlayerId) -> bool {
        let raw = &self.names[p as usize];
        self.worded(p) && raw.matches(',').count() <= 1 && !raw.contains([':', '/', '&', '+', ';'])
    }

    /// The surname and the first given name's initial.
    fn initial_key(&self, p: PlayerId) -> Option<(String, char)> {
        let (s, g) = &self.split[p as usize];
        g.first()
            .and_then(|w| w.chars().next())
            .map(|c| (s.clone(), c))
    }

    /// The initials of the given names.
    fn initials(&self, p: PlayerId) -> Vec<char> {
        self.split[p as usize]
            .1
            .iter()
            .filter_map(|w| w.chars().next())
            .collect()
    }

    /// Whether `short`'s given names each begin `full`'s, one at least cut short.
    fn abbreviates(&self, short: PlayerId, full: PlayerId) -> bool {
        let (gs, gf) = (&self.split[short as usize].1, &self.split[full as usize].1);
        !gs.is_empty()
            && gf.len() >= gs.len()
            && gs.iter().zip(gf).all(|(s, f)| f.starts_with(s.as_str()))
            && gs.iter().zip(gf).any(|(s, f)| s.len() < f.len())
            // Cut short to a few letters (`Ju`, `Ana`): a longer word that begins another is
            // more often a misspelling of it (`Hikaru` and `Hikarui`).
            && gs
                .iter()
                .zip(gf)
                .all(|(s, f)| s.len() == f.len() || s.chars().count() <= ABBREVIATION_LETTERS)
    }

    fn count(&self, p: PlayerId) -> u32 {
        self.contests.get(p as usize).copied().unwrap_or(0)
    }

    /// Given names written out (not initials only), and not an abbreviation of another's.
    fn full(&self, p: PlayerId) -> bool {
        !self.abbreviation[p as usize]
            && self.split[p as usize]
                .1
                .iter()
                .any(|w| w.chars().count() > 1)
    }

    /// Whether `p` is a better spelling to keep than `q`: written out, then the most
    /// contests, then the longest.
    fn better(&self, p: PlayerId, q: PlayerId) -> bool {
        let key = |p: PlayerId| {
            (
                self.full(p),
                self.count(p),
                self.names[p as usize].chars().count(),
            )
        };
        key(p) > key(q)
    }

    /// Links names of the same letters ([`Likeness::Spelling`]), then of the same words in
    /// another order ([`Likeness::WordOrder`]).
    fn link_spellings(&self, u: &mut Union) {
        for g in groups(self.ids().map(|p| (self.folded[p as usize].clone(), p))) {
            for w in g.windows(2) {
                u.join(w[0], w[1], Likeness::Spelling);
            }
        }
        for g in groups(self.ids().map(|p| (self.sorted_words(p), p))) {
            for w in g.windows(2) {
                u.join(w[0], w[1], Likeness::WordOrder);
            }
        }
    }

    /// Initials and abbreviations: names with the same surname and first initial; one whose
    /// given names each begin the other's, one at least cut short (`Kasparov, G`,
    /// `Karpov,Ana`, `Polgar,Ju` of `Kasparov, Garry`, `Karpov, Anatoly`, `Polgar, Judit`),
    /// matches the fullest such names. Only names written as a person's
    /// ([`Names::personal`]). Linked when those are of one group, else returned as
    /// ambiguous; either way marked as abbreviations.
    fn link_abbreviations(&mut self, u: &mut Union) -> Ambiguous {
        let mut ambiguous = Ambiguous::default();
        for g in groups(
            self.ids()
                .filter(|&p| self.personal(p))
                .filter_map(|p| self.initial_key(p).map(|k| (k, p))),
        ) {
            if g.len() > ABBREVIATION_GROUP_LIMIT {
                continue;
            }
            for &short in &g {
                let matches: Vec<PlayerId> = g
                    .iter()
                    .copied()
                    .filter(|&full| full != short && self.abbreviates(short, full))
                    .collect();
                if matches.is_empty() {
                    continue;
                }
                self.abbreviation[short as usize] = true;
                // The fullest of them: those that abbreviate none of the others.
                let fullest: Vec<PlayerId> = matches
                    .iter()
                    .copied()
                    .filter(|&m| !matches.iter().any(|&o| o != m && self.abbreviates(m, o)))
                    .collect();
                let mut distinct: Vec<PlayerId> = fullest.iter().map(|&m| u.find(m)).collect();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() == 1 {
                    u.join(short, fullest[0], Likeness::Initials);
                } else {
                    ambiguous.insert(short, fullest);
                }
            }
        }
        ambiguous
    }

    /// One edit apart: names sharing the name itself or the name with one letter dropped,
    /// sorted. Only names written as two words or more (a person's name, with a space or a
    /// comma): handles one letter apart are usually two accounts.
    fn one_edit_pairs(&self) -> Vec<(PlayerId, PlayerId)> {
        let mut by_key: FxHashMap<String, Vec<PlayerId>> = FxHashMap::default();
        for p in self.ids() {
            let f = &self.folded[p as usize];
            let chars: Vec<(usize, char)> = f.char_indices().collect();
            if chars.len() < 6 || !self.worded(p) {
                continue;
            }
            by_key.entry(f.clone()).or_default().push(p);
            for &(i, c) in &chars {
                let mut k = String::with_capacity(f.len());
                k.push_str(&f[..i]);
                k.push_str(&f[i + c.len_utf8()..]);
                by_key.entry(k).or_default().push(p);
            }
        }
        let mut pairs: FxHashSet<(PlayerId, PlayerId)> = FxHashSet::default();
        for bucket in by_key.values() {
            if bucket.len() < 2 || bucket.len() > BUCKET_LIMIT {
                continue;
            }
            for (i, &a) in bucket.iter().enumerate() {
                for &b in &bucket[i + 1..] {
                    if a != b {
                        pairs.insert((a.min(b), a.max(b)));
                    }
                }
            }
        }
        let mut pairs: Vec<(PlayerId, PlayerId)> = pairs.into_iter().collect();
        pairs.sort_unstable();
        // Not joined as the others are: one edit after another would chain unrelated names.
        // Nor when the edit changes an initial: `Carlsen,H` is not `Carlsen,M`.
        pairs.retain(|&(a, b)| {
            let (fa, fb) = (&self.folded[a as usize], &self.folded[b as usize]);
            let ((sa, ga), (sb, gb)) = (&self.split[a as usize], &self.split[b as usize]);
            // The surname alone differs (a letter of a given name written out is another
            // person: `Tim` and `Tom`), and it is a name, not a one-letter mark (`A`, `B`).
            fa != fb
                && ga == gb
                && sa.chars().count() >= 3
                && sb.chars().count() >= 3
                && one_edit(fa, fb)
                && self.initials(a) == self.initials(b)
                && !self.abbreviates(a, b)
                && !self.abbreviates(b, a)
        });
        pairs
    }

    /// Each group keeps a spelling with its given names written out (not initials only), of
    /// those the one with the most contests, then the longest, then the first.
    fn kept_spellings(&self, u: &mut Union) -> Kept {
        let mut keep: FxHashMap<PlayerId, PlayerId> = FxHashMap::default();
        let mut total: FxHashMap<PlayerId, u64> = FxHashMap::default();
        for p in 0..self.len() as PlayerId {
            if u.why[p as usize].is_none() {
                continue;
            }
            let root = u.find(p);
            *total.entry(root).or_default() += u64::from(self.count(p));
            let best = keep.entry(root).or_insert(p);
            if self.better(p, *best) {
                *best = p;
            }
        }
        Kept { keep, total }
    }

    /// Every linked name but its group's kept spelling, to that spelling.
    fn group_suggestions(&self, u: &mut Union, kept: &Kept) -> Suggestions {
        let mut out = Suggestions::new();
        for p in 0..self.len() as PlayerId {
            let Some(why) = u.why[p as usize] else {
                continue;
            };
            let root = u.find(p);
            let player = kept.keep[&root];
            if player != p {
                // The reason the alias is the player's own where one holds between the two
                // (`Kasparov,G` is `Kasparov, Gary` by initials, though it is first linked by
                // punctuation to `Kasparov, G.`), else its strongest link into the group.
                let why = if self.folded[p as usize] == self.folded[player as usize] {
                    Likeness::Spelling
                } else if self.sorted_words(p) == self.sorted_words(player) {
                    Likeness::WordOrder
                } else if self.abbreviates(p, player) {
                    Likeness::Initials
                } else {
                    why
                };
                out.push((
                    kept.total[&root],
                    Suggestion {
                        alias: p,
                        player,
                        why,
                        ambiguous_with: Vec::new(),
                    },
                ));
            }
        }
        out
    }

    /// One edit apart: the weaker group's kept spelling to the stronger's, never a group that
    /// is itself the target of another (no chain of edits).
    fn edit_suggestions(
        &self,
        u: &mut Union,
        keep: &FxHashMap<PlayerId, PlayerId>,
        edits: &[(PlayerId, PlayerId)],
        out: &mut Suggestions,
    ) {
        let mut target: FxHashMap<PlayerId, PlayerId> = FxHashMap::default();
        for &(a, b) in edits {
            let (ra, rb) = (u.find(a), u.find(b));
            if ra == rb {
                continue;
            }
            let (ka, kb) = (
                keep.get(&ra).copied().unwrap_or(ra),
                keep.get(&rb).copied().unwrap_or(rb),
            );
            let (weak, strong) = if self.better(ka, kb) {
                (rb, ka)
            } else {
                (ra, kb)
            };
            let t = target.entry(weak).or_insert(strong);
            if self.better(strong, *t) {
                *t = strong;
            }
        }
        let targets: FxHashSet<PlayerId> = target.values().map(|&k| u.find(k)).collect();
        let mut weak: Vec<(PlayerId, PlayerId)> = target.into_iter().collect();
        weak.sort_unstable();
        for (root, strong) in weak {
            if targets.contains(&root) {
                continue;
            }
            let alias = keep.get(&root).copied().unwrap_or(root);
            out.push((
                u64::from(self.count(alias)) + u64::from(self.count(strong)),
                Suggestion {
                    alias,
                    player: strong,
                    why: Likeness::OneEdit,
                    ambiguous_with: Vec::new(),
                },
            ));
        }
    }

    /// Abbreviations of several groups' names: to the kept spelling of the group with the
    /// most contests, the others named for the user to choose.
    fn ambiguous_suggestions(
        &self,
        u: &mut Union,
        keep: &FxHashMap<PlayerId, PlayerId>,
        ambiguous: Ambiguous,
        out: &mut Suggestions,
    ) {
        let mut ambiguous: Vec<(PlayerId, Vec<PlayerId>)> = ambiguous.into_iter().collect();
        ambiguous.sort_unstable();
        for (short, matches) in ambiguous {
            if u.why[short as usize].is_some() && keep.get(&u.find(short)) != Some(&short) {
                // Linked another way to a spelling kept for it: that link stands. (A group of
                // abbreviations only, `Kasparov,G` with `Kasparov, G.`, keeps one of them, and
                // the choice among full names is still to be made.)
                continue;
            }
            let mut players: Vec<PlayerId> = matches
                .iter()
                .map(|&m| keep.get(&u.find(m)).copied().unwrap_or(m))
                .collect();
            players.sort_by_key(|&m| (std::cmp::Reverse(self.count(m)), m));
            players.dedup();
            let player = players[0];
            out.push((
                u64::from(self.count(short)) + u64::from(self.count(player)),
                Suggestion {
                    alias: short,
                    player,
                    why: Likeness::Initials,
                    ambiguous_with: players[1..].to_vec(),
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(alias: &str, player: &str, line: u64) -> AliasLine {
        AliasLine {
            alias: alias.into(),
            player: player.into(),
            line,
        }
    }

    #[test]
    fn aliases_follow_chains_and_refuse_conflicts_and_cycles() {
        let a = Aliases::new(&[line("a", "b", 2), line("b", "c", 3), line("x", "x", 4)]).unwrap();
        assert_eq!(a.resolve("a"), "c");
        assert_eq!(a.resolve("b"), "c");
        assert_eq!(a.resolve("c"), "c");
        assert_eq!(a.resolve("x"), "x");
        assert_eq!(a.len(), 2);
        let e = Aliases::new(&[line("a", "b", 2), line("a", "c", 5)]).unwrap_err();
        assert!(e.contains("line 5") && e.contains("line 2"), "{e}");
        let e = Aliases::new(&[line("a", "b", 2), line("b", "a", 3)]).unwrap_err();
        assert!(e.contains("circle"), "{e}");
        // Given in NFD, found in NFC.
        let a = Aliases::new(&[line("Polga\u{301}r", "Polgar", 2)]).unwrap();
        assert_eq!(a.resolve("Polg\u{e1}r"), "Polgar");
    }

    #[test]
    fn folding_and_edits() {
        assert_eq!(fold("  Polgár,  Judit. "), "polgar judit");
        assert_eq!(fold("KASPAROV,G."), "kasparov g");
        assert!(one_edit("polgar judith", "polgar judit"));
        assert!(one_edit("kramnik", "kranmik"));
        assert!(one_edit("kramnik", "kramnak"));
        assert!(!one_edit("kramnik", "krmanak"));
        assert!(!one_edit("anand", "anand v"));
    }

    #[test]
    fn finds_the_spellings_of_one_player() {
        let names: Vec<String> = [
            "Kasparov, Garry",    // 0
            "Kasparov, G",        // 1
            "Garry Kasparov",     // 2
            "Anand, Viswanathan", // 3
            "Anand,V.",           // 4
            "Polgar, Judit",      // 5
            "Polgar, Judith",     // 6
            "POLGÁR, Judit",      // 7
            "Polgar, Susan",      // 8
            "Polgar, S",          // 9
            "Polgar, Sofia",      // 10
            "Karpov, Anatoly",    // 11
            "Kramnik, Vladimir",  // 12
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
        let contests = [50, 10, 5, 40, 8, 30, 3, 2, 20, 4, 15, 60, 45];
        let s = likely_duplicates(&names, &contests, true);
        let find = |alias: PlayerId| s.iter().find(|x| x.alias == alias);
        assert_eq!(
            find(1).map(|x| (x.player, x.why)),
            Some((0, Likeness::Initials))
        );
        assert_eq!(
            find(2).map(|x| (x.player, x.why)),
            Some((0, Likeness::WordOrder))
        );
        assert_eq!(
            find(4).map(|x| (x.player, x.why)),
            Some((3, Likeness::Initials))
        );
        // Judith and Judit are given names written out, and differ: not linked.
        assert!(find(6).is_none());
        assert_eq!(
            find(7).map(|x| (x.player, x.why)),
            Some((5, Likeness::Spelling))
        );
        // "Polgar, S" is Susan or Sofia: the most played first, the other named.
        let s9 = find(9).unwrap();
        assert_eq!((s9.player, s9.ambiguous_with.clone()), (8, vec![10]));
        for kept in [0, 3, 5, 8, 10, 11, 12] {
            assert!(find(kept).is_none(), "{} is kept", names[kept as usize]);
        }
        assert_eq!(s.len(), 5);
        // The biggest group first: Kasparov's 65 contests.
        assert_eq!(s[0].player, 0);
    }

    /// Spellings as player collections published in the pgnmentor style write them (the
    /// files of tomgp/chess-canvas's `pgn/` folder: Kasparov's, Karpov's, Nakamura's, ...):
    /// given names cut short to a few letters, an abbreviation group of its own, a
    /// consultation game and an assisted player that are nobody's spelling, a misspelt
    /// given name, and initials one edit apart that are two players.
    #[test]
    fn finds_abbreviations_as_published_collections_write_them() {
        let names: Vec<String> = [
            "Kasparov, Gary",                 // 0
            "Kasparov,G",                     // 1
            "Kasparov, G.",                   // 2
            "Kasparov, Garry:Crumiller, Jon", // 3
            "Karpov, Anatoly",                // 4
            "Karpov,Ana",                     // 5
            "Karpov,An",                      // 6
            "Polgar, Judit",                  // 7
            "Polgar,Ju",                      // 8
            "Nakamura, Hikaru",               // 9
            "Nakamura, Hikarui",              // 10
            "Nakamura,Hi",                    // 11
            "Anand,V",                        // 12
            "Anand, Viswanathan",             // 13
            "Anand,V / FRITZ7",               // 14
            "Carlsen,Magnus",                 // 15
            "Carlsen,M",                      // 16
            "Carlsen,H",                      // 17
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
        let contests = [
            1930, 564, 2, 1, 2810, 597, 295, 148, 152, 707, 527, 76, 1721, 1611, 2, 9, 1607, 1,
        ];
        let s = likely_duplicates(&names, &contests, true);
        let find = |alias: PlayerId| s.iter().find(|x| x.alias == alias);
        let link = |alias: PlayerId| find(alias).map(|x| (x.player, x.why));
        let initials = Likeness::Initials;
        // The group of two abbreviations still finds its full name, by initials.
        assert_eq!(link(1), Some((0, initials)));
        assert_eq!(link(2), Some((0, initials)));
        assert_eq!(link(5), Some((4, initials)));
        assert_eq!(link(6), Some((4, initials)));
        assert_eq!(link(8), Some((7, initials)));
        assert_eq!(link(11), Some((9, initials)));
        // Hikarui is a misspelt given name, or another player: not linked.
        assert_eq!(link(10), None);
        assert_eq!(link(12), Some((13, initials)));
        assert_eq!(link(16), Some((15, initials)));
        // Kept: the full names; not anyone's spelling: the consultation game, the assisted
        // player, and Carlsen,H (one edit from Carlsen,M, but another initial).
        for kept in [0, 3, 4, 7, 9, 13, 14, 15, 17] {
            assert!(find(kept).is_none(), "{} is kept", names[kept as usize]);
        }
        assert_eq!(s.len(), 8);
        // One line per alias.
        let mut aliases: Vec<PlayerId> = s.iter().map(|x| x.alias).collect();
        aliases.sort_unstable();
        aliases.dedup();
        assert_eq!(aliases.len(), s.len());
    }

    #[test]
    fn one_edit_does_not_chain_and_skips_handles() {
        let names: Vec<String> = [
            "Smith, Anna",
            "Smith, Anne",
            "Smyth, Anne",
            "tourist",
            "tourist1",
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
        let s = likely_duplicates(&names, &[5, 10, 3, 100, 4], true);
        let pairs: Vec<(u32, u32)> = s.iter().map(|x| (x.alias, x.player)).collect();
        // Smyth is one edit from Smith (Anne both); Anna differs from Anne in her given name.
        assert_eq!(pairs, [(2, 1)]);
        assert!(s.iter().all(|x| x.why == Likeness::OneEdit));
        // Not asked for: none.
        assert!(likely_duplicates(&names, &[5, 10, 3, 100, 4], false).is_empty());
    }

    /// Pairs of different players of Jeff Sackmann's ATP files (`tennis_atp`): the Gullikson
    /// twins, two Joao Sou?a, two players told apart by a letter after the name. Twins are
    /// never linked; surnames one edit apart only when asked for.
    #[test]
    fn twins_and_siblings_are_never_linked() {
        let names: Vec<String> = [
            "Tim Gullikson",         // 0
            "Tom Gullikson",         // 1
            "Joao Sousa",            // 2
            "Joao Souza",            // 3
            "Andre Van Der Merwe A", // 4
            "Andre Van Der Merwe B", // 5
            "T. Gullikson",          // 6
            "GULLIKSON, Tim",        // 7
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
        let contests = [500, 440, 484, 77, 10, 4, 2, 3];
        let plain = likely_duplicates(&names, &contests, false);
        let pairs = |s: &[Suggestion]| -> Vec<(u32, u32)> {
            let mut p: Vec<(u32, u32)> = s.iter().map(|x| (x.alias, x.player)).collect();
            p.sort_unstable();
            p
        };
        // Tim's other spelling is his; `T. Gullikson` is Tim or Tom: ambiguous.
        assert_eq!(pairs(&plain), [(6, 0), (7, 0)]);
        assert_eq!(
            plain.iter().find(|x| x.alias == 6).unwrap().ambiguous_with,
            [1]
        );
        let edits = likely_duplicates(&names, &contests, true);
        assert_eq!(pairs(&edits), [(3, 2), (6, 0), (7, 0)]);
    }
}
