// The current hash route as reactive state.
import { parseHash, routeHash, type Route } from './route';

class Router {
  route = $state<Route>(parseHash(location.hash));

  constructor() {
    window.addEventListener('hashchange', () => {
      this.route = parseHash(location.hash);
    });
  }

  go(r: Route): void {
    const h = routeHash(r);
    if (location.hash !== h) location.hash = h;
  }
}

export const router = new Router();
