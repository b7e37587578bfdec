// Who the dashboard calls the API as: kept in this tab's sessionStorage
// only, so closing the tab signs out.

const KEY = 'swconfig-dashboard-session';

export function current() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY)) || null;
  } catch {
    return null;
  }
}

export function save(session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function forget() {
  sessionStorage.removeItem(KEY);
}
