import 'reflect-metadata';
import { startApp } from './create-app.js';

startApp().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
