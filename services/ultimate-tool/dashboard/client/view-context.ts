// What a view gets: the element to render into, the parsed route, and a way to register cleanup
// (the live jobs view stops polling when the user leaves it).
import type { Route } from './route.js';

export interface ViewContext {
  root: HTMLElement;
  route: Route;
  /** Called when the view is replaced. */
  onLeave(cleanup: () => void): void;
  /** Still the current view? (an answer arriving after navigation is dropped) */
  current(): boolean;
}

export type View = (ctx: ViewContext) => Promise<void>;
