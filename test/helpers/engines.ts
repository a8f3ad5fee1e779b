import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import mysql from 'mysql2/promise';
import type { Engine } from '../../src/db/database.ts';

/**
 * The engines this run tests: SQLite always; PostgreSQL and MariaDB/MySQL when TEST_POSTGRES_URL /
 * TEST_MYSQL_URL are set. Each test suite gets a database of its own, dropped afterwards. In CI a
 * configured engine that cannot be reached fails the suite (it is never skipped).
 */
export function enabledEngines(): Engine[] {
  const engines: Engine[] = ['sqlite'];
  if (process.env.TEST_POSTGRES_URL) engines.push('postgres');
  if (process.env.TEST_MYSQL_URL) engines.push('mysql');
  return engines;
}

export interface ScratchDatabase {
  engine: Engine;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function scratchDatabase(engine: Engine): Promise<ScratchDatabase> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-test-'));
    return { engine, url: `sqlite:${path.join(dir, 'test.sqlite')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  if (engine === 'postgres') {
    const admin = process.env.TEST_POSTGRES_URL!;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return {
      engine,
      url: withDatabase(admin, name),
      drop: async () => {
        // pg-pool's end() resolves before its sockets have closed; a forced drop would kill those
        // sessions mid-close (an uncaught error in the closed app). Wait for them to go instead.
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        try {
          for (let attempt = 0; ; attempt++) {
            try {
              await c.query(`DROP DATABASE IF EXISTS ${name}`);
              break;
            } catch (error) {
              if ((error as { code?: string }).code !== '55006' || attempt > 100) throw error;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          }
        } finally {
          await c.end();
        }
      },
    };
  }
  const admin = process.env.TEST_MYSQL_URL!;
  const connection = await mysql.createConnection(admin);
  await connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await connection.end();
  return {
    engine,
    url: withDatabase(admin, name),
    drop: async () => {
      const c = await mysql.createConnection(admin);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}
