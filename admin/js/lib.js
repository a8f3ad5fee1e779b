// The view library: Preact, its hooks and htm in one ES module served by the service
// (docs/decisions/0006-admin-console.md). Every view imports it from here.
export { html, render, useState, useEffect, useRef, useMemo, useCallback, useContext, createContext } from '../vendor/htm-preact.js';
