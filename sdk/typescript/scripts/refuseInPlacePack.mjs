// prepack: a bare `npm pack` (or publish) of this folder would pack whatever its local dist/
// holds (stale files of earlier builds included) after building into the repository. The
// release tarball is made by `npm run sdk:pack` instead, in a temporary directory.
process.stderr.write(
  'Pack the client with `npm run sdk:pack [-- <directory>]` from the repository root ' +
    '(`npm run pack:release` here): it builds from the sources in a temporary directory, ' +
    'writes the tarball to <directory> (default: the current one) and leaves the repository untouched.\n',
);
process.exit(1);
