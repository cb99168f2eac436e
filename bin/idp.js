#!/usr/bin/env node
import { main } from '../dist/commands/index.js';

process.exitCode = await main(process.argv);
