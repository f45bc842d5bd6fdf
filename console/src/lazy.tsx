/**
 * A view whose code is loaded when it is first opened (`import()`, a chunk of its own), so the
 * first view a console opens carries only what it shows. Once loaded, a view renders at once.
 */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorNote, Loading, Page } from "./views/common";

export function lazyView<P extends object>(title: string, load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  return function LazyView(props: P) {
    const [, setReady] = useState(false);
    const [failed, setFailed] = useState(false);
    const [attempt, setAttempt] = useState(0);
    useEffect(() => {
      if (loaded) return;
      let current = true;
      loading ??= load();
      loading.then(
        (view) => {
          loaded = view;
          if (current) setReady(true);
        },
        () => {
          // A chunk of an older build (the console was redeployed) or a dropped connection: try again on request.
          loading = null;
          if (current) setFailed(true);
        },
      );
      return () => {
        current = false;
      };
    }, [attempt]);
    const View = loaded;
    if (View) return <View {...props} />;
    if (failed) {
      return (
        <Page title={title}>
          <ErrorNote
            message="This page could not be loaded. The console may have been updated: reload the tab, or try again."
            retry={() => {
              setFailed(false);
              setAttempt((n) => n + 1);
            }}
          />
        </Page>
      );
    }
    return <Loading what="the page" />;
  };
}
