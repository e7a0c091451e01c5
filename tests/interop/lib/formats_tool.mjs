// Runs corridor_formats_tool (path in CORRIDOR_FORMATS_TOOL, set by tests/interop/CMakeLists.txt).
import { execFileSync } from 'node:child_process';

export const toolPath = process.env.CORRIDOR_FORMATS_TOOL;

export function runTool(args, input = '') {
  if (!toolPath) throw new Error('CORRIDOR_FORMATS_TOOL is not set');
  return execFileSync(toolPath, args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

export function runToolJson(args) {
  return JSON.parse(runTool(args));
}

// One JSON object per output line, for commands that read one item per input line.
export function runToolLines(args, lines) {
  return runTool(args, lines.join('\n') + '\n')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
}
