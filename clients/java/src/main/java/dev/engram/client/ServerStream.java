package dev.engram.client;

import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;

/**
 * A server stream as an iterator (and a single-use Iterable for for-each loops):
 * failures surface as {@link EngramException}; {@link #close()} cancels the call.
 */
public final class ServerStream<T> implements Iterator<T>, Iterable<T>, AutoCloseable {
  private final Context.CancellableContext context;
  private final Iterator<T> messages;

  ServerStream(Context.CancellableContext context, Iterator<T> messages) {
    this.context = context;
    this.messages = messages;
  }

  @Override
  public boolean hasNext() {
    try {
      return messages.hasNext();
    } catch (StatusRuntimeException e) {
      throw EngramException.from(e);
    }
  }

  @Override
  public T next() {
    try {
      return messages.next();
    } catch (StatusRuntimeException e) {
      throw EngramException.from(e);
    }
  }

  @Override
  public Iterator<T> iterator() {
    return this;
  }

  /** Cancels the call; the server sees the stream end. */
  @Override
  public void close() {
    context.cancel(null);
  }
}
