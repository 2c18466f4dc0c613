//! A machine's simulated proxies ([`ProxyList`]), kept in pawn id order and found by binary
//! search (with a position hint for the hot path).

use super::buffer::Proxy;

/// A machine's simulated proxies, in pawn id order.
#[derive(Clone, Debug, Default)]
pub struct ProxyList {
    list: Vec<Proxy>,
}

impl ProxyList {
    fn find(&self, pawn: u16) -> Result<usize, usize> {
        self.list.binary_search_by_key(&pawn, |p| p.pawn)
    }

    /// Where `pawn`'s proxy is in the list (valid until a proxy is added or removed).
    #[inline]
    pub fn position(&self, pawn: u16) -> Option<usize> {
        self.find(pawn).ok()
    }

    /// [`ProxyList::position`], trying `hint` first.
    #[inline]
    pub fn position_from(&self, pawn: u16, hint: usize) -> Option<usize> {
        match self.list.get(hint) {
            Some(p) if p.pawn == pawn => Some(hint),
            _ => self.position(pawn),
        }
    }

    /// The proxy at `position`.
    #[inline]
    pub fn at_mut(&mut self, position: usize) -> Option<&mut Proxy> {
        self.list.get_mut(position)
    }

    pub fn get_mut(&mut self, pawn: u16) -> Option<&mut Proxy> {
        match self.find(pawn) {
            Ok(i) => self.list.get_mut(i),
            Err(_) => None,
        }
    }

    /// Adds `proxy` unless there is one for its pawn already; true if it was added.
    pub fn insert(&mut self, proxy: Proxy) -> bool {
        match self.find(proxy.pawn) {
            Ok(_) => false,
            Err(i) => {
                self.list.insert(i, proxy);
                true
            }
        }
    }

    /// Removes the proxy of `pawn`; true if there was one.
    pub fn remove(&mut self, pawn: u16) -> bool {
        match self.find(pawn) {
            Ok(i) => {
                self.list.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    pub fn contains(&self, pawn: u16) -> bool {
        self.find(pawn).is_ok()
    }

    pub fn clear(&mut self) {
        self.list.clear();
    }

    pub fn values(&self) -> std::slice::Iter<'_, Proxy> {
        self.list.iter()
    }

    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, Proxy> {
        self.list.iter_mut()
    }

    /// The pawn ids, in order.
    pub fn keys(&self) -> impl Iterator<Item = u16> + '_ {
        self.list.iter().map(|p| p.pawn)
    }
}
