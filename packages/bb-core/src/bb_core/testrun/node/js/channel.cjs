'use strict';
// bugbout's report channel for the node test runners: authenticated, numbered JSON lines
// written to a file descriptor bugbout opened (BUGBOUT_REPORT_FD), never to stdout.
//
// The key arrives on a pipe (BUGBOUT_REPORT_KEY_FD), read once and closed when this file
// is first loaded - in the runner's main process, before it starts any worker - and both
// variables leave the environment, so no test process inherits them. What the emitter
// needs (fs.writeSync, crypto.createHmac, JSON.stringify, Buffer.from) is bound here, at
// load: a test that patches them later changes nothing this file writes.
const fs = require('node:fs');
const crypto = require('node:crypto');

const writeSync = fs.writeSync;
const readSync = fs.readSync;
const closeSync = fs.closeSync;
const createHmac = crypto.createHmac;
const stringify = JSON.stringify;
const bufferFrom = Buffer.from;
const MESSAGE_LIMIT = 4000;

function take() {
  const fd = Number.parseInt(process.env.BUGBOUT_REPORT_FD ?? '', 10);
  const keyFd = Number.parseInt(process.env.BUGBOUT_REPORT_KEY_FD ?? '', 10);
  delete process.env.BUGBOUT_REPORT_FD;
  delete process.env.BUGBOUT_REPORT_KEY_FD;
  let key = null;
  if (Number.isInteger(keyFd) && keyFd >= 0) {
    const buffer = Buffer.alloc(128);
    let size = 0;
    try {
      size = readSync(keyFd, buffer, 0, 128, null);
    } catch {
      size = 0;
    }
    try {
      closeSync(keyFd);
    } catch {
      // already closed
    }
    key = bufferFrom(buffer.subarray(0, size).toString('latin1').trim(), 'hex');
  }
  return { fd: Number.isInteger(fd) && fd >= 0 ? fd : null, key };
}

const channel = take();
let counter = 0;

function emit(record) {
  if (channel.fd === null || channel.key === null) return;
  counter += 1;
  const body = stringify({ ...record, n: counter });
  const mac = createHmac('sha256', channel.key).update(body, 'utf8').digest('hex').slice(0, 32);
  let data = bufferFrom(`${body.slice(0, -1)},"mac":"${mac}"}\n`, 'utf8');
  while (data.length) {
    let written = 0;
    try {
      written = writeSync(channel.fd, data);
    } catch {
      return;
    }
    data = data.subarray(written);
  }
}

function text(value) {
  const out = value === undefined || value === null ? '' : String(value);
  return out.length > MESSAGE_LIMIT ? `...\n${out.slice(-MESSAGE_LIMIT)}` : out;
}

// The test id bugbout uses: `path > describe > ... > test name`, the path relative to the
// folder the run started in (the checkout), with forward slashes.
function testId(root, file, names) {
  let relative = file;
  const start = root.endsWith('/') ? root : `${root}/`;
  if (file.startsWith(start)) relative = file.slice(start.length);
  return [relative.split('\\').join('/'), ...names].join(' > ');
}

module.exports = { emit, text, testId, connected: channel.fd !== null && channel.key !== null };
